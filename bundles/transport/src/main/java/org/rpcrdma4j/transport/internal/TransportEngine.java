package org.rpcrdma4j.transport.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.server.ThreadEnds;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.UsageTally;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.transport.internal.read.StrategyRegistry;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TransportEngine - the state behind an {@code RdmaTransport}: the listener and its connection
 * manager (the acceptor), the registered strategies, the counters, and the
 * {@link CompletionLoop}s that serve the connections.
 *
 * <p>Each connect request goes to the loop with the fewest connections; every later event of that
 * connection goes to the same loop. Two ways to run it: {@link #doWork()} drives the acceptor and
 * every loop on the caller's thread (deterministic tests), or {@link #start} gives each loop its
 * own thread and the acceptor one more, each sleeping until it has work.
 *
 * <p>Threading: strategy registration, activation, {@link #close()} and the statistics are safe
 * from any thread; {@link #doWork()} only while not {@link #start started}.
 */
public final class TransportEngine implements ConnectionEventHandler {
    private static final Logger LOG = LoggerFactory.getLogger(TransportEngine.class);
    private static final int EVENTS_PER_PASS = 16;
    /**
     * Longest sleep of the acceptor. It is woken for what it must act on (connection events, the
     * close, the last loop ending), so this bounds only how late it would notice a lost wake-up.
     */
    private static final long ACCEPTOR_AWAIT_MILLIS = 1000;

    private final TransportConfig config;
    private final RpcCallHandler handler;
    private final ConnectionManager connectionManager;
    private final ListeningEndpoint listener;
    private final Counters counters = Counters.forTransport();
    private final CompletionLoop[] loops;
    /** Its changes wake the loops: an idle loop sleeps until woken, and retires removed strategies' pools. */
    private final StrategyRegistry strategies = new StrategyRegistry(this::wakeLoops);
    private final AtomicInteger repliesInTransit = new AtomicInteger();
    /** Buffers for replies that outgrow a pending reply's own; idle ones bounded by replyStagingBytes. */
    private final LargeReplyBuffers largeReplyBuffers;
    /** Connections admitted (handed to a loop) and not yet gone: what maxConnections bounds. */
    private final AtomicInteger admitted = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closeRequested;
    private volatile boolean closed;

    /**
     * Takes ownership of an open connection manager, opens one completion channel per loop (when
     * the provider has them) and listens.
     *
     * @throws VerbsException when listening or a channel fails (everything opened is closed then)
     */
    public TransportEngine(VerbsProvider provider, ConnectionManager connectionManager, InetSocketAddress address,
                           TransportConfig config, RpcCallHandler handler) throws VerbsException {
        this.config = config;
        this.handler = handler;
        this.connectionManager = connectionManager;
        this.largeReplyBuffers = new LargeReplyBuffers(config.replyStagingBytes());
        this.loops = new CompletionLoop[config.completionLoops()];
        try {
            boolean channels = true;
            for (int i = 0; i < loops.length; i++) {
                CompletionChannel channel = null;
                if (channels) {
                    try {
                        channel = provider.openCompletionChannel();
                    } catch (VerbsException e) {
                        if (e.errno() != Errno.EOPNOTSUPP) {
                            throw e;
                        }
                        channels = false;
                        LOG.info("Verbs provider '{}' has no completion channel ({}); the RDMA completion loops poll",
                                provider.name(), e.getMessage());
                    }
                }
                loops[i] = new CompletionLoop(i, this, channel);
            }
            this.listener = connectionManager.listen(address, config.credits());
        } catch (VerbsException | RuntimeException e) {
            closeChannelsAfterFailedOpen();
            connectionManager.close();
            throw e;
        }
    }

    private void closeChannelsAfterFailedOpen() {
        for (CompletionLoop loop : loops) {
            if (loop != null) {
                loop.closeChannelQuietly();
            }
        }
    }

    TransportConfig config() {
        return config;
    }

    /** @return the transport's counters */
    public Counters counters() {
        return counters;
    }

    RpcCallHandler handler() {
        return handler;
    }

    /** @return the registered strategies and the active one */
    public StrategyRegistry strategies() {
        return strategies;
    }

    int loopCount() {
        return loops.length;
    }

    boolean isCloseRequested() {
        return closeRequested;
    }

    /** @return the bound listening address */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** @return how many connections are live (no snapshot taken) */
    public int connectionCount() {
        int n = 0;
        for (CompletionLoop loop : loops) {
            n += loop.connectionCount();
        }
        return n;
    }

    /** @return the live connections (a snapshot) */
    public List<RdmaConnection> connections() {
        List<RdmaConnection> all = new ArrayList<>();
        for (CompletionLoop loop : loops) {
            loop.addConnectionsTo(all);
        }
        return List.copyOf(all);
    }

    /**
     * doWork() - one pass of the acceptor and of every loop on the caller's thread (tests and
     * single-threaded drivers; not after {@link #start}).
     *
     * @return the work done; 0 means idle
     */
    public int doWork() {
        if (closed) {
            return 0;
        }
        int work = pollEvents();
        for (CompletionLoop loop : loops) {
            work += loop.doWork();
        }
        finishCloseWhenLoopsAre();
        return work;
    }

    /**
     * start() - run every loop on its own thread and the acceptor on one more; each sleeps until
     * it has work. Stop with {@link #close()}, then {@link #awaitClosed}.
     *
     * @param threadFactory makes the threads (names, daemon flag)
     */
    public synchronized void start(ThreadFactory threadFactory) {
        if (!threads.isEmpty()) {
            throw new IllegalStateException("already started");
        }
        for (CompletionLoop loop : loops) {
            for (int i = 0; i < loop.crewSize(); i++) {
                threads.add(threadFactory.newThread(loop));
            }
        }
        threads.add(threadFactory.newThread(this::runAcceptor));
        for (Thread t : threads) {
            t.start();
        }
    }

    /**
     * awaitClosed() - wait until every loop and the acceptor have ended (after {@link #close()}).
     *
     * @return true when they all ended within the timeout
     */
    public boolean awaitClosed(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        List<Thread> started;
        synchronized (this) {
            started = List.copyOf(threads);
        }
        return ThreadEnds.awaitEnded(started, deadline);
    }

    private void runAcceptor() {
        while (!closed) {
            try {
                connectionManager.awaitEvents(this, EVENTS_PER_PASS, ACCEPTOR_AWAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (VerbsException e) {
                if (closeRequested) {
                    LOG.debug("Connection manager closed while stopping: {}", e.getMessage());
                } else {
                    counters.increment(Counter.POST_FAILURES);
                    LOG.warn("Waiting for connection events failed: {}", e.getMessage());
                }
            }
            finishCloseWhenLoopsAre();
        }
    }

    private int pollEvents() {
        try {
            return connectionManager.pollEvents(this, EVENTS_PER_PASS);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            return 0;
        }
    }

    /**
     * onConnectionEvent() - the acceptor's part: a connect request goes to the loop with the fewest
     * connections; any other event to the loop of its connection, which acts on it.
     */
    @Override
    public void onConnectionEvent(ConnectionEvent event) {
        Connection connection = event.connection();
        if (event.type() == ConnectionEventType.CONNECT_REQUEST) {
            if (closeRequested) {
                ConnectionState.rejectAndClose(connection);
                return;
            }
            if (admitted.incrementAndGet() > config.maxConnections()) {
                admitted.decrementAndGet();
                counters.increment(Counter.CONNECTIONS_REFUSED_LIMIT);
                LOG.warn("RPC-over-RDMA connect request from {} rejected: {} connections served already (maxConnections)",
                        event.peerAddress(), config.maxConnections());
                ConnectionState.rejectAndClose(connection);
                return;
            }
            leastLoaded().handIn(new HandedEvent(ConnectionEventType.CONNECT_REQUEST, connection, null,
                    event.privateData()));
            return;
        }
        Object attachment = connection == null ? null : connection.attachment();
        if (attachment instanceof ConnectionState) {
            ConnectionState state = (ConnectionState) attachment;
            // Every connection of this engine was accepted by one of its completion loops.
            ((CompletionLoop) state.loop()).handIn(new HandedEvent(event.type(), connection, state, null));
        }
    }

    /** onConnectionGone() - an admitted connection was removed, or could not be set up. Any loop. */
    void onConnectionGone() {
        admitted.decrementAndGet();
    }

    private CompletionLoop leastLoaded() {
        CompletionLoop best = loops[0];
        for (int i = 1; i < loops.length; i++) {
            if (loops[i].connectionCount() < best.connectionCount()) {
                best = loops[i];
            }
        }
        return best;
    }

    /**
     * usage() - count what is held right now, for leak checks. Only while no loop runs
     * concurrently (tests drive {@link #doWork()}; threaded loops: after they ended).
     *
     * @return the sum over every loop and its connections
     */
    public ResourceUsage usage() {
        UsageTally usage = new UsageTally();
        for (CompletionLoop loop : loops) {
            loop.addUsage(usage);
        }
        return usage.toResourceUsage();
    }

    /** @return replies handed to the transport whose SEND has not completed (or been dropped) yet */
    public AtomicInteger repliesInTransit() {
        return repliesInTransit;
    }

    public LargeReplyBuffers largeReplyBuffers() {
        return largeReplyBuffers;
    }

    /** close() - start closing: every connection is disconnected; the loops finish it. Any thread. */
    public void close() {
        if (closeRequested) {
            return;
        }
        closeRequested = true;
        listener.close();
        for (CompletionLoop loop : loops) {
            loop.wakeup();
        }
        connectionManager.wakeup();
    }

    /**
     * wakeLoops() - end every loop's sleep, so each runs a pass now (the set of strategies changed:
     * a removed one's pools are retired on the loops' next pass). Any thread.
     */
    private void wakeLoops() {
        for (CompletionLoop loop : loops) {
            loop.wakeup();
        }
    }

    /** onLoopEnded() - a loop's thread is done: the acceptor may now finish the close. Any loop. */
    void onLoopEnded() {
        connectionManager.wakeup();
    }

    /** @return true once every connection, pool, channel and domain is released and the manager closed */
    public boolean isClosed() {
        return closed;
    }

    private void finishCloseWhenLoopsAre() {
        if (!closeRequested || closed) {
            return;
        }
        for (CompletionLoop loop : loops) {
            if (!loop.isClosed()) {
                return;
            }
        }
        connectionManager.close();
        closed = true;
    }
}
