package org.rpcrdma4j.server;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves every registered RPC program over every transport added, as both come and go.
 *
 * <p>Usable as plain Java (on the class path or the module path); in OSGi a thin
 * Declarative Services component feeds it from the service registry.
 *
 * <p>Ownership: the host owns its worker pool and every transport added to it until that
 * transport is removed; {@link #close} stops them all. Threading: every method is safe
 * from any thread.
 */
public final class HostServer implements AutoCloseable, HostServerStatistics {

    private static final Logger LOG = LoggerFactory.getLogger(HostServer.class);

    /** Default number of worker threads running program code. */
    public static final int DEFAULT_WORKER_THREADS = 16;

    /** Upper bound on worker threads accepted from configuration. */
    public static final int MAX_WORKER_THREADS = 1024;

    /**
     * Default bound on the calls one connection may have waiting for a worker: the most receive
     * contexts an RPC-over-RDMA connection can be given, so by default such a connection is
     * back-pressured by its credits (its client meets RNR) before it could reach the bound.
     */
    public static final int DEFAULT_MAX_QUEUED_CALLS_PER_CONNECTION = 8192;

    /** Upper bound on {@code maxQueuedCallsPerConnection} accepted from configuration. */
    public static final int MAX_QUEUED_CALLS_PER_CONNECTION = 1_000_000;

    /** Seconds {@link #close} waits for running calls to finish. */
    private static final int DRAIN_SECONDS = 10;

    private final ProgramTable programs = new ProgramTable();
    private final WorkerPool workers;
    private final RpcCallDispatcher dispatcher;
    private final List<HostedTransport> transports = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * @param workerThreads threads that run program code, 1 to {@value #MAX_WORKER_THREADS}
     * @throws IllegalArgumentException naming {@code workerThreads} when out of range
     */
    public HostServer(int workerThreads) {
        this(workerThreads, DEFAULT_MAX_QUEUED_CALLS_PER_CONNECTION);
    }

    /**
     * Workers serve each connection's calls from its own queue, the connections in turn
     * (round-robin), so a connection that keeps many calls in flight does not hold up a quiet
     * one's.
     *
     * @param workerThreads threads that run program code, 1 to {@value #MAX_WORKER_THREADS}
     * @param maxQueuedCallsPerConnection calls one connection may have waiting for a worker, 1 to
     *        {@value #MAX_QUEUED_CALLS_PER_CONNECTION}; beyond it a call is refused as when the
     *        pool is shutting down (the RDMA transport drops it, logged; counted in
     *        {@link #callsRefusedOverConnectionBound()})
     * @throws IllegalArgumentException naming the setting when out of range
     */
    public HostServer(int workerThreads, int maxQueuedCallsPerConnection) {
        if (workerThreads < 1 || workerThreads > MAX_WORKER_THREADS) {
            throw new IllegalArgumentException("workerThreads must be 1.." + MAX_WORKER_THREADS
                    + ", was " + workerThreads);
        }
        checkMaxQueuedCallsPerConnection(maxQueuedCallsPerConnection);
        this.workers = new WorkerPool(workerThreads, maxQueuedCallsPerConnection, new WorkerThreadFactory());
        this.dispatcher = new RpcCallDispatcher(programs, workers::execute);
    }

    /**
     * checkMaxQueuedCallsPerConnection() - check the per-connection queue bound setting.
     *
     * @return {@code value}, within 1..{@value #MAX_QUEUED_CALLS_PER_CONNECTION}
     * @throws IllegalArgumentException naming the setting otherwise
     */
    public static int checkMaxQueuedCallsPerConnection(int value) {
        if (value < 1 || value > MAX_QUEUED_CALLS_PER_CONNECTION) {
            throw new IllegalArgumentException("maxQueuedCallsPerConnection must be 1.."
                    + MAX_QUEUED_CALLS_PER_CONNECTION + ", was " + value);
        }
        return value;
    }

    /** @return calls refused because their connection already had maxQueuedCallsPerConnection waiting */
    @Override
    public long callsRefusedOverConnectionBound() {
        return workers.refusedOverBound();
    }

    @Override
    public long workerWakeups() {
        return workers.wakeups();
    }

    @Override
    public long callsWithKeptCredential() {
        return dispatcher.callsWithKeptCredential();
    }

    @Override
    public long dispatchedCalls() {
        return dispatcher.dispatchedCalls();
    }

    @Override
    public long failedCalls() {
        return dispatcher.failedCalls();
    }

    @Override
    public long programErrorCalls() {
        return dispatcher.programErrorCalls();
    }

    @Override
    public long malformedMessages() {
        return dispatcher.malformedCalls();
    }

    /** The live program table. */
    public ProgramTable programs() {
        return programs;
    }

    /** The dispatcher transports hand received messages to. */
    public RpcCallDispatcher dispatcher() {
        return dispatcher;
    }

    /** Serves {@code dispatchable} as this program and version over every transport. */
    public void addProgram(OncRpcProgram program, RpcDispatchable dispatchable) {
        programs.register(program, dispatchable);
        LOG.info("Serving RPC program {} ({})", ProgramTable.describe(program), dispatchable.getClass().getName());
    }

    /** Stops serving this program and version, if {@code dispatchable} serves it. */
    public void removeProgram(OncRpcProgram program, RpcDispatchable dispatchable) {
        if (programs.unregister(program, dispatchable)) {
            LOG.info("No longer serving RPC program {}", ProgramTable.describe(program));
        }
    }

    /**
     * Starts a transport and serves every program over it.
     *
     * @throws IOException when the transport cannot start; it is then not added
     * @throws IllegalStateException when the host is closed
     */
    public void addTransport(HostedTransport transport) throws IOException {
        Objects.requireNonNull(transport, "transport");
        if (closed) {
            throw new IllegalStateException("host server is closed");
        }
        transport.start(dispatcher);
        transports.add(transport);
        LOG.info("Transport {} serving on {}", transport.name(), transport.localAddress());
    }

    /** Stops a transport and forgets it; does nothing if it was not added. */
    public void removeTransport(HostedTransport transport) {
        if (transports.remove(transport)) {
            transport.stop();
            LOG.info("Transport {} stopped", transport.name());
        }
    }

    /** The transports serving now. */
    public List<HostedTransport> transports() {
        return List.copyOf(transports);
    }

    /**
     * Stops every transport, lets running calls finish for a bounded time, and stops the
     * worker threads. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (HostedTransport transport : transports) {
            removeTransport(transport);
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(DRAIN_SECONDS, TimeUnit.SECONDS)) {
                int dropped = workers.shutdownNow();
                LOG.warn("Calls still running after {} s; interrupting them ({} queued calls dropped)", DRAIN_SECONDS,
                        dropped);
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static final class WorkerThreadFactory implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "rpcrdma4j-worker-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
