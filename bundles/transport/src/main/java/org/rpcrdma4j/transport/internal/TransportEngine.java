package org.rpcrdma4j.transport.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * TransportEngine - the state behind an {@code RdmaTransport}: the listener, the connections,
 * the per-device resources, the registered strategies, and the completion loop.
 *
 * <p>Threading: {@link #doWork()} and everything it reaches run on one thread, the completion
 * thread. Strategy registration, activation, {@link #close()} and the statistics are safe from
 * any thread.
 */
public final class TransportEngine implements ConnectionEventHandler {
    private static final int EVENTS_PER_PASS = 16;

    private final TransportConfig config;
    private final RpcCallHandler handler;
    private final ConnectionManager connectionManager;
    private final ListeningEndpoint listener;
    private final Counters counters = new Counters(null);
    private final HeaderDecoder decoder;
    private final WorkCompletion[] completions;
    private final CopyOnWriteArrayList<ConnectionState> connections = new CopyOnWriteArrayList<>();
    private final List<DeviceResources> devices = new ArrayList<>();
    private final StrategyRegistry strategies = new StrategyRegistry();
    private int strategiesSeen = -1;
    private volatile boolean closeRequested;
    private volatile boolean closed;
    private volatile Runnable wakeup = () -> { };
    private final AtomicInteger repliesInTransit = new AtomicInteger();

    /**
     * Takes ownership of an open connection manager and listens.
     *
     * @throws VerbsException when listening fails (the manager is closed then)
     */
    public TransportEngine(ConnectionManager connectionManager, InetSocketAddress address, TransportConfig config,
                           RpcCallHandler handler) throws VerbsException {
        this.config = config;
        this.handler = handler;
        this.connectionManager = connectionManager;
        this.decoder = new HeaderDecoder(config.limits(), HeaderDecoder.Role.RESPONDER);
        this.completions = new WorkCompletion[config.completionBatch()];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        try {
            this.listener = connectionManager.listen(address, config.credits());
        } catch (VerbsException | RuntimeException e) {
            connectionManager.close();
            throw e;
        }
    }

    TransportConfig config() {
        return config;
    }

    /** @return the transport's counters */
    public Counters counters() {
        return counters;
    }

    HeaderDecoder decoder() {
        return decoder;
    }

    RpcCallHandler handler() {
        return handler;
    }

    RegistrationStrategy activeStrategy() {
        return strategies.active();
    }

    /** @return the registered strategies and the active one */
    public StrategyRegistry strategies() {
        return strategies;
    }

    /** @return the bound listening address */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** @return how many connections are live (no snapshot taken) */
    public int connectionCount() {
        return connections.size();
    }

    /** @return the live connections (a snapshot) */
    public List<RdmaConnection> connections() {
        return List.<RdmaConnection>copyOf(connections);
    }

    /**
     * doWork() - one pass of the completion loop: connection events, then every connection's
     * completions, READs, SENDs and receives, then pool housekeeping.
     *
     * @return the work done; 0 means idle
     */
    public int doWork() {
        if (closed) {
            return 0;
        }
        int work = pollEvents();
        int version = strategies.version();
        if (version != strategiesSeen) {
            strategiesSeen = version;
            List<RegistrationStrategy> registered = strategies.registered();
            for (int i = 0; i < devices.size(); i++) {
                devices.get(i).retireMissing(registered);
            }
        }
        if (closeRequested) {
            for (int i = 0; i < connections.size(); i++) {
                connections.get(i).beginClose(false);
            }
        }
        for (int i = 0; i < connections.size(); i++) {
            ConnectionState c = connections.get(i);
            work += c.doWork(completions);
            if (c.isRemovable()) {
                connections.remove(i--);
                work++;
            }
        }
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).closeIdlePools();
        }
        if (closeRequested && connections.isEmpty()) {
            finishClose();
        }
        return work;
    }

    private int pollEvents() {
        try {
            return connectionManager.pollEvents(this, EVENTS_PER_PASS);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            return 0;
        }
    }

    @Override
    public void onConnectionEvent(ConnectionEvent event) {
        Connection connection = event.connection();
        Object attachment = connection == null ? null : connection.attachment();
        ConnectionState state = attachment instanceof ConnectionState ? (ConnectionState) attachment : null;
        switch (event.type()) {
            case CONNECT_REQUEST:
                onConnectRequest(event);
                break;
            case ESTABLISHED:
                if (state != null) {
                    state.onEstablished();
                }
                break;
            case DISCONNECTED:
            case CONNECT_ERROR:
            case REJECTED:
            case UNREACHABLE:
            case DEVICE_REMOVAL:
                if (state == null) {
                    break;
                }
                if (event.type() == ConnectionEventType.DISCONNECTED) {
                    state.beginClose(false);
                } else {
                    state.fail("the connection manager reported " + event.type());
                }
                break;
            default:
                break;
        }
    }

    private void onConnectRequest(ConnectionEvent event) {
        Connection connection = event.connection();
        if (closeRequested) {
            rejectAndClose(connection);
            return;
        }
        ConnectionPrivateData peer = ConnectionPrivateData.decode(event.privateData(), event.privateData().position(),
                event.privateData().remaining()).orElse(null);
        ConnectionState state;
        QueuePairSizing sizing;
        try {
            DeviceResources device = deviceFor(connection.device());
            sizing = QueuePairSizing.of(config, connection.device().capabilities());
            state = new ConnectionState(this, connection, device, peer);
        } catch (VerbsException | RuntimeException e) {
            counters.increment(Counter.ACCEPT_FAILURES);
            rejectAndClose(connection);
            return;
        }
        try {
            state.open(sizing);
        } catch (VerbsException | RuntimeException e) {
            counters.increment(Counter.ACCEPT_FAILURES);
            return;
        }
        connections.add(state);
        counters.increment(Counter.CONNECTIONS_ACCEPTED);
    }

    /**
     * rejectAndClose() - answer a connect request we cannot serve and release its connection.
     * A request already answered (accept failed half-way) cannot be rejected: only the close
     * matters then, so a refused reject is not counted.
     */
    static void rejectAndClose(Connection connection) {
        try {
            connection.reject(ByteBuffer.allocate(0));
        } catch (VerbsException | RuntimeException e) {
            // Already accepted or gone: closing below releases it either way.
        }
        connection.close();
    }

    private DeviceResources deviceFor(VerbsDevice device) throws VerbsException {
        for (int i = 0; i < devices.size(); i++) {
            if (devices.get(i).device() == device) {
                return devices.get(i);
            }
        }
        SinkPoolParameters parameters = new SinkPoolParameters(config.readSinkCount(), config.readSinkLength(),
                config.sinkPageSize(), QueuePairSizing.readSgeLimit(device.capabilities()));
        DeviceResources resources = new DeviceResources(device, device.allocateProtectionDomain(), parameters,
                config.replyStagingBytes());
        devices.add(resources);
        return resources;
    }

    /**
     * usage() - count what is held right now, for leak checks. Completion thread only (or while
     * nobody runs {@link #doWork()}).
     *
     * @return {held receive contexts, posted receives, send buffers in use, READs in flight,
     *         sinks outstanding, sink registrations, connections}
     */
    public int[] usage() {
        int[] usage = new int[7];
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).addUsage(usage);
        }
        for (DeviceResources d : devices) {
            usage[4] += d.outstandingSinks();
            usage[5] += d.liveRegistrations();
        }
        usage[6] = connections.size();
        return usage;
    }

    /**
     * onWorkAvailable() - what to run when another thread hands the completion loop work (a
     * reply to send, a call released), e.g. unparking the thread that drives {@link #doWork()}.
     *
     * @param action a cheap, non-blocking action safe from any thread
     */
    public void onWorkAvailable(Runnable action) {
        this.wakeup = Objects.requireNonNull(action, "action");
    }

    /** @return replies handed to the transport whose SEND has not completed (or been dropped) yet */
    public AtomicInteger repliesInTransit() {
        return repliesInTransit;
    }

    /** wakeup() - another thread queued work for the completion loop. */
    void wakeup() {
        wakeup.run();
    }

    /** close() - start closing: every connection is disconnected; {@link #doWork()} finishes it. */
    public void close() {
        closeRequested = true;
        listener.close();
    }

    /** @return true once every connection, pool and domain is released and the manager closed */
    public boolean isClosed() {
        return closed;
    }

    private void finishClose() {
        boolean all = true;
        for (DeviceResources d : devices) {
            all &= d.close();
        }
        if (all) {
            devices.clear();
            connectionManager.close();
            closed = true;
        }
    }
}
