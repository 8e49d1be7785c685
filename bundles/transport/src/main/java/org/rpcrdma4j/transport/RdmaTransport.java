package org.rpcrdma4j.transport;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.transport.internal.TransportEngine;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * RdmaTransport - an RPC-over-RDMA version 1 server endpoint: it listens, accepts connections
 * (advertising its inline sizes in RFC 8797 private data), receives calls, pulls their read chunks
 * and hands each complete call to the {@link RpcCallHandler}.
 *
 * <p>Driving it: one thread calls {@link #doWork()} in a loop (Aeron style: it returns the work
 * done, 0 when idle, so the caller chooses how to idle); tests call it step by step. The handler
 * runs on that thread. <b>Only that thread MAY call {@link #doWork()} and {@link #usage()}.</b>
 * Strategy registration and activation, {@link #close()}, {@link #statistics()} and
 * {@link #connections()} are safe from any thread.
 *
 * <p>Ownership: the creator owns the transport and MUST {@link #close()} it, then keep calling
 * {@link #doWork()} until {@link #isClosed()} (connections flush their outstanding work and wait
 * for handlers to release their calls).
 */
public final class RdmaTransport implements AutoCloseable {
    private final TransportEngine engine;

    private RdmaTransport(TransportEngine engine) {
        this.engine = engine;
    }

    /**
     * open() - listen for RPC-over-RDMA connections.
     *
     * @param provider the verbs provider to use
     * @param address the address to bind (port 0: any free port; RFC 8267's is 20049)
     * @param config the settings
     * @param handler the upcall for every received call
     * @return the listening transport
     * @throws VerbsException when the connection manager cannot be opened or the address bound
     */
    public static RdmaTransport open(VerbsProvider provider, InetSocketAddress address, TransportConfig config,
                                     RpcCallHandler handler) throws VerbsException {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handler, "handler");
        ConnectionManager cm = provider.openConnectionManager();
        return new RdmaTransport(new TransportEngine(provider, cm, address, config, handler));
    }

    /** @return the bound address, with the port actually assigned */
    public InetSocketAddress localAddress() {
        return engine.localAddress();
    }

    /**
     * doWork() - one pass of the acceptor and of every completion loop on the caller's thread
     * (deterministic tests, single-threaded drivers; not after {@link #start}): connection
     * events, completions of every
     * connection (receives decoded, READs accounted, calls delivered), READs, SENDs and receives
     * posted, closes finished. Never blocks and never throws for anything a peer sends.
     *
     * @return the amount of work done; 0 when there was nothing to do
     */
    public int doWork() {
        return engine.doWork();
    }

    /**
     * connectionCount() - how many connections are live, without the snapshot
     * {@link #connections()} allocates: for a completion loop that sleeps longer while nobody is
     * connected.
     *
     * @return the number of live connections
     */
    public int connectionCount() {
        return engine.connectionCount();
    }

    /**
     * start() - serve on threads of the transport's own: one per completion loop
     * ({@link TransportConfig#completionLoops()}), each sleeping on its completion channel when
     * idle, and one acceptor for connection events. After this, MUST NOT call {@link #doWork()}.
     * Stop with {@link #close()} and {@link #awaitClosed}.
     *
     * @param threadFactory makes the threads (names, daemon flag)
     */
    public void start(ThreadFactory threadFactory) {
        engine.start(threadFactory);
    }

    /**
     * awaitClosed() - after {@link #close()}, wait until the threads of {@link #start} have ended
     * and everything is released.
     *
     * @return true when closed within the timeout
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitClosed(long timeout, TimeUnit unit) throws InterruptedException {
        return engine.awaitClosed(timeout, unit) && engine.isClosed();
    }

    /**
     * @return replies sent through {@link PendingReply#send} whose SEND has not completed yet
     *         (nor been dropped): an orderly stop waits for this to reach zero before closing
     */
    public int repliesInTransit() {
        return engine.repliesInTransit().get();
    }

    /**
     * addStrategy() - offer a registration strategy; the first one added becomes active.
     *
     * @param strategy the strategy (an OSGi service or a {@link java.util.ServiceLoader} provider)
     */
    public void addStrategy(RegistrationStrategy strategy) {
        engine.strategies().add(strategy);
    }

    /**
     * removeStrategy() - withdraw a strategy. READs it started complete normally and their sinks
     * go back to its pools, which are then closed. When it was active the first remaining
     * strategy becomes active.
     *
     * @param strategy the strategy going away
     */
    public void removeStrategy(RegistrationStrategy strategy) {
        engine.strategies().remove(strategy);
    }

    /**
     * activateStrategy() - choose the strategy new calls' READs use. Calls already reading keep
     * theirs.
     *
     * @param name the strategy's {@link RegistrationStrategy#name()}
     * @throws IllegalArgumentException when none of that name is registered
     */
    public void activateStrategy(String name) {
        engine.strategies().activate(name);
    }

    /** @return the active strategy, or null when none is registered */
    public RegistrationStrategy activeStrategy() {
        return engine.strategies().active();
    }

    /** @return the registered strategies */
    public List<RegistrationStrategy> strategies() {
        return List.copyOf(engine.strategies().registered());
    }

    /** @return the transport's counters (sums over all connections, plus transport-wide ones) */
    public TransportStatistics statistics() {
        return engine.counters();
    }

    /** @return the connections not yet fully closed (a snapshot) */
    public List<RdmaConnection> connections() {
        return engine.connections();
    }

    /**
     * usage() - what the transport holds right now, for leak checks. Only while no loop runs
     * concurrently: between {@link #doWork()} passes, or after {@link #awaitClosed}.
     *
     * @return the snapshot
     */
    public ResourceUsage usage() {
        return engine.usage();
    }

    /**
     * close() - stop listening and start closing every connection. Returns at once; keep calling
     * {@link #doWork()} until {@link #isClosed()}, or (after {@link #start}) {@link #awaitClosed}.
     */
    @Override
    public void close() {
        engine.close();
    }

    /** @return true once everything the transport held is released */
    public boolean isClosed() {
        return engine.isClosed();
    }
}
