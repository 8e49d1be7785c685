package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.QueuedConnectionEvent;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A connection manager over one DiSNI event channel (rdma_event_channel).
 *
 * <p>Events: {@link #pump} takes one event from DiSNI ({@code RdmaEventChannel.getCmEvent}),
 * reads its status and private data through {@link DisniExtensions}, and either hands an address
 * or route resolution to the connection waiting in {@link #createConnection}, or queues the event
 * for {@link #pollEvents}. It also takes the devices' asynchronous events, which queue
 * QUEUE_PAIR_FATAL on the manager of the connection whose queue pair failed (no thread of its
 * own: the async fds are read without waiting). A DISCONNECTED the peer caused is answered at once
 * ({@link DisniConnection#answerDisconnect}). Every call that touches the channel or its ids (DiSNI keeps an unlocked
 * id table per channel) runs under {@link #channelLock}.
 *
 * <p>Waiting ({@link #awaitEvents}): one poll(2), outside the channel lock, on a wake-up eventfd,
 * the event channel's descriptor and the async descriptors of the devices that carry queue pairs
 * ({@link DisniExtensions#awaitDescriptors}); then what is readable is taken without waiting. So an
 * idle connection-management thread sleeps until something happens (a connect request, a
 * disconnect, a failed queue pair, a {@link #wakeup()}), with no periodic wake-ups, and a
 * {@code createConnection} on another thread is never held up by it. {@link #awaitLock} keeps
 * {@link #close()} from destroying the descriptors under a poll: close rings the wake-up first.
 */
final class DisniConnectionManager implements ConnectionManager {
    /** Longest single wait of an address or route resolution (a client's createConnection). */
    static final int WAIT_SLICE_MILLIS = 20;
    /**
     * Longest single sleep of {@link #awaitEvents}: only so that an interrupt of the waiting
     * thread is noticed; events and wake-ups end a sleep at once.
     */
    static final int IDLE_WAIT_SLICE_MILLIS = 1000;
    /** Bit of the wake-up and of the event channel in the mask {@link DisniExtensions#awaitDescriptors} returns. */
    private static final int WAKEUP_READY = 1;
    private static final int CHANNEL_READY = 2;

    private static final ConnectionEventType[] TYPES = eventTypes();
    private static final byte[] NO_PRIVATE_DATA = new byte[0];

    private final DisniProvider provider;
    private final RdmaEventChannel channel;
    private final long channelHandle;
    private final ReentrantLock channelLock = new ReentrantLock();
    private final Map<Long, DisniConnection> connections = new ConcurrentHashMap<>();
    private final Map<Long, DisniListeningEndpoint> listeners = new ConcurrentHashMap<>();
    private final ArrayDeque<QueuedConnectionEvent> pending = new ArrayDeque<>();
    private final ByteBuffer privateData = ByteBuffer.allocateDirect(DisniExtensions.MAX_PRIVATE_DATA);
    /** Held by the thread inside poll(2) on {@link #descriptors}; close takes it before freeing them. */
    private final ReentrantLock awaitLock = new ReentrantLock();
    /** The wake-up eventfd; -1 once closed (guarded by this object's monitor for ringing and closing). */
    private int wakeup;
    private final int channelDescriptor;
    /** What one await watches: the wake-up, the channel, then devices' async descriptors (the awaiting thread only). */
    private final int[] descriptors = new int[DisniExtensions.MAX_AWAITED_DESCRIPTORS];
    private volatile boolean closed;

    /** @throws IOException when the wake-up eventfd cannot be opened (the caller still owns the channel) */
    DisniConnectionManager(DisniProvider provider, RdmaEventChannel channel) throws IOException {
        this.provider = provider;
        this.channel = channel;
        this.channelHandle = ((NatObject) channel).getObjId();
        this.channelDescriptor = DisniExtensions.eventChannelDescriptor(channelHandle);
        if (channelDescriptor < 0) {
            throw new IOException("the event channel has no descriptor [errno " + -channelDescriptor + "]");
        }
        this.wakeup = DisniExtensions.openWakeup();
        // A descriptor that is not open would make every await fail: say so here, once.
        descriptors[0] = wakeup;
        descriptors[1] = channelDescriptor;
        int ready = DisniExtensions.awaitDescriptors(descriptors, 2, 0);
        if (ready < 0) {
            DisniExtensions.closeWakeup(wakeup);
            throw new IOException("poll(2) refuses the event channel's descriptor " + channelDescriptor + " [errno " + -ready + "]");
        }
    }

    DisniProvider provider() {
        return provider;
    }

    @Override
    public ListeningEndpoint listen(InetSocketAddress address, int backlog) throws VerbsException {
        checkIpv4(address);
        channelLock.lock();
        try {
            checkOpen();
            RdmaCmId id = createId();
            long handle = ((NatObject) id).getObjId();
            try {
                id.bindAddr(address);
                id.listen(backlog);
                DisniListeningEndpoint endpoint = new DisniListeningEndpoint(this, id, handle, (InetSocketAddress) id.getSource());
                listeners.put(handle, endpoint);
                return endpoint;
            } catch (IOException e) {
                DisniProvider.destroyQuietly(id);
                throw DisniErrors.toVerbs("listen on " + address, e);
            }
        } finally {
            channelLock.unlock();
        }
    }

    @Override
    public Connection createConnection(InetSocketAddress localAddress, InetSocketAddress remoteAddress, Duration timeout)
            throws VerbsException {
        checkIpv4(remoteAddress);
        if (localAddress != null) {
            checkIpv4(localAddress);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        DisniConnection connection;
        channelLock.lock();
        try {
            checkOpen();
            RdmaCmId id = createId();
            connection = new DisniConnection(this, id, false);
            connections.put(connection.handle(), connection);
        } finally {
            channelLock.unlock();
        }
        try {
            if (localAddress != null) {
                connection.id().bindAddr(localAddress);
            }
            connection.id().resolveAddr(null, remoteAddress, timeoutMillis);
            awaitResolution(connection, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED, deadline, remoteAddress);
            connection.id().resolveRoute(timeoutMillis);
            awaitResolution(connection, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, remoteAddress);
            connection.resolved(provider.deviceOf(connection.id().getVerbs()));
            return connection;
        } catch (VerbsException | RuntimeException e) {
            connection.close();
            throw e;
        } catch (IOException e) {
            connection.close();
            throw DisniErrors.toVerbs("resolving " + remoteAddress, e);
        }
    }

    private void awaitResolution(DisniConnection connection, RdmaCmEvent.EventType expected, long deadline, InetSocketAddress remote)
            throws VerbsException {
        while (connection.resolution() < 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new VerbsException("resolving " + remote + " timed out", Errno.ETIMEDOUT);
            }
            pump((int) Math.min(WAIT_SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
        }
        int type = connection.takeResolution();
        if (type != expected.ordinal()) {
            int status = connection.resolutionStatus();
            throw new VerbsException("resolving " + remote + ": " + RdmaCmEvent.EventType.values()[type],
                    status < 0 ? -status : Errno.EHOSTUNREACH);
        }
    }

    @Override
    public int pollEvents(ConnectionEventHandler handler, int maxEvents) throws VerbsException {
        while (pendingSize() < maxEvents && pump(0)) {
            // drain what the channel has ready
        }
        return deliver(handler, maxEvents);
    }

    @Override
    public int awaitEvents(ConnectionEventHandler handler, int maxEvents, long timeout, TimeUnit unit)
            throws VerbsException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (pendingSize() == 0) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            int ready = awaitDescriptors((int) Math.min(IDLE_WAIT_SLICE_MILLIS, (left + 999_999) / 1_000_000));
            if ((ready & ~(WAKEUP_READY | CHANNEL_READY)) != 0) {
                provider.takeAsyncEvents();
            }
            if ((ready & CHANNEL_READY) != 0) {
                while (pendingSize() < maxEvents && pump(0)) {
                    // take what the channel has ready
                }
            }
            if ((ready & WAKEUP_READY) != 0) {
                break; // woken: return at once, with whatever is pending
            }
        }
        return pollEvents(handler, maxEvents);
    }

    /** One poll(2) on the wake-up, the channel and the async descriptors; @return the ready mask */
    private int awaitDescriptors(int timeoutMillis) throws VerbsException {
        awaitLock.lock();
        try {
            checkOpen();
            descriptors[0] = wakeup;
            descriptors[1] = channelDescriptor;
            int count = provider.addAsyncEventDescriptors(descriptors, 2);
            int ready = DisniExtensions.awaitDescriptors(descriptors, count, timeoutMillis);
            if (ready < 0) {
                throw new VerbsException("poll(2) on the connection manager's descriptors failed", -ready);
            }
            return ready;
        } finally {
            awaitLock.unlock();
        }
    }

    @Override
    public void wakeup() {
        synchronized (this) {
            if (wakeup >= 0) {
                DisniExtensions.ringWakeup(wakeup); // fails only for a broken eventfd: the await then reports it
            }
        }
    }

    private int deliver(ConnectionEventHandler handler, int maxEvents) {
        int delivered = 0;
        while (delivered < maxEvents) {
            QueuedConnectionEvent event;
            synchronized (pending) {
                event = pending.poll();
            }
            if (event == null) {
                break;
            }
            delivered++;
            handler.onConnectionEvent(event);
        }
        return delivered;
    }

    private int pendingSize() {
        synchronized (pending) {
            return pending.size();
        }
    }

    /**
     * Takes one event, waiting up to timeoutMillis, and routes it.
     *
     * @return true when an event was taken
     */
    private boolean pump(int timeoutMillis) throws VerbsException {
        channelLock.lock();
        try {
            checkOpen();
            RdmaCmEvent event = channel.getCmEvent(timeoutMillis);
            provider.takeAsyncEvents(); // a fatal queue pair event queues QUEUE_PAIR_FATAL on its connection's manager
            if (event == null) {
                return false;
            }
            int status = DisniExtensions.lastEventStatus(channelHandle);
            privateData.clear();
            byte[] data = new byte[DisniExtensions.lastEventPrivateData(channelHandle, privateData)];
            privateData.get(data);
            route(event, status, data);
            return true;
        } catch (VerbsException e) {
            throw e;
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_get_cm_event", e);
        } finally {
            channelLock.unlock();
        }
    }

    private void route(RdmaCmEvent event, int status, byte[] data) throws IOException {
        int type = event.getEvent();
        RdmaCmId id = event.getConnIdPriv();
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
            onConnectRequest(event, id, status, data);
            return;
        }
        DisniConnection connection = id != null ? connections.get(((NatObject) id).getObjId()) : null;
        if (connection == null) {
            return; // an event of a listener, or of a connection closed meanwhile
        }
        if (type <= RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_ERROR.ordinal()) {
            connection.onResolution(type, status);
            return;
        }
        ConnectionEventType mapped = type < TYPES.length ? TYPES[type] : null;
        if (mapped == null) {
            return; // CONNECT_RESPONSE, multicast, ADDR_CHANGE, TIMEWAIT_EXIT: not part of the contract
        }
        if (mapped == ConnectionEventType.DISCONNECTED) {
            connection.answerDisconnect();
        }
        connection.onEvent(mapped);
        queue(new QueuedConnectionEvent(mapped, connection, null, data, connection.remoteAddressOrNull(), status));
    }

    private void onConnectRequest(RdmaCmEvent event, RdmaCmId id, int status, byte[] data) throws VerbsException {
        RdmaCmId listenId = event.getListenIdPriv();
        DisniListeningEndpoint endpoint = listenId != null ? listeners.get(((NatObject) listenId).getObjId()) : null;
        DisniConnection connection = new DisniConnection(this, id, true);
        connections.put(connection.handle(), connection);
        if (endpoint == null) {
            connection.close(); // the listener is gone: destroying the id rejects the request
            return;
        }
        try {
            connection.resolved(provider.deviceOf(id.getVerbs()));
        } catch (VerbsException e) {
            connection.close();
            throw e;
        } catch (IOException e) {
            connection.close();
            throw DisniErrors.toVerbs("connect request", e);
        }
        try {
            int depths = DisniExtensions.lastEventReadDepths(channelHandle);
            connection.requestedReadDepths(depths >>> 8, depths & 0xff);
        } catch (IOException e) {
            connection.close();
            throw DisniErrors.toVerbs("connect request", e);
        }
        connection.onEvent(ConnectionEventType.CONNECT_REQUEST);
        queue(new QueuedConnectionEvent(ConnectionEventType.CONNECT_REQUEST, connection, endpoint, data, connection.remoteAddressOrNull(),
                status));
    }

    /**
     * Queues QUEUE_PAIR_FATAL for a connection of this manager. Any thread: a device's
     * asynchronous events are taken by whichever manager pumps first.
     */
    void queueQueuePairFatal(DisniConnection connection, int asyncEventType) {
        queue(new QueuedConnectionEvent(ConnectionEventType.QUEUE_PAIR_FATAL, connection, null, NO_PRIVATE_DATA,
                connection.knownRemoteAddress(), asyncEventType));
        wakeup(); // another manager's thread may have taken the event from the shared async fd
    }

    private void queue(QueuedConnectionEvent event) {
        synchronized (pending) {
            pending.add(event);
        }
    }

    private RdmaCmId createId() throws VerbsException {
        try {
            return channel.createId(RdmaCm.RDMA_PS_TCP);
        } catch (IOException e) {
            throw DisniErrors.toVerbs("rdma_create_id", e);
        }
    }

    /** Forgets an id and destroys it (rdma_destroy_id), under the channel lock. */
    void destroy(long handle, RdmaCmId id) {
        channelLock.lock();
        try {
            connections.remove(handle);
            listeners.remove(handle);
            DisniProvider.destroyQuietly(id);
        } finally {
            channelLock.unlock();
        }
    }

    @Override
    public void close() {
        wakeup(); // a thread in poll(2) leaves it, and sees closed at its next await
        awaitLock.lock();
        channelLock.lock();
        try {
            if (closed) {
                return;
            }
            for (DisniListeningEndpoint endpoint : new ArrayList<>(listeners.values())) {
                endpoint.close();
            }
            for (DisniConnection connection : new ArrayList<>(connections.values())) {
                connection.close();
            }
            closed = true;
            try {
                channel.destroyEventChannel();
            } catch (IOException ignored) {
                // the channel is gone either way
            }
            synchronized (this) {
                DisniExtensions.closeWakeup(wakeup);
                wakeup = -1;
            }
        } finally {
            channelLock.unlock();
            awaitLock.unlock();
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("connection manager is closed", Errno.EBADF);
        }
    }

    private static void checkIpv4(InetSocketAddress address) throws VerbsException {
        if (address == null || !(address.getAddress() instanceof Inet4Address)) {
            throw new VerbsException("DiSNI 2.1 speaks IPv4 only: " + address, Errno.EINVAL);
        }
    }

    /** rdma_cm_event_type ordinal → contract type, null where the contract has none. */
    private static ConnectionEventType[] eventTypes() {
        ConnectionEventType[] types = new ConnectionEventType[RdmaCmEvent.EventType.values().length];
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_ERROR.ordinal()] = ConnectionEventType.CONNECT_ERROR;
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_UNREACHABLE.ordinal()] = ConnectionEventType.UNREACHABLE;
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_REJECTED.ordinal()] = ConnectionEventType.REJECTED;
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal()] = ConnectionEventType.ESTABLISHED;
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()] = ConnectionEventType.DISCONNECTED;
        types[RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()] = ConnectionEventType.DEVICE_REMOVAL;
        return types;
    }
}
