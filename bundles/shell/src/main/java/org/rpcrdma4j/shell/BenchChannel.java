package org.rpcrdma4j.shell;

import java.time.Duration;

/**
 * BenchChannel - one connection the benchmark sends NULL calls through (RPC-over-RDMA or TCP).
 *
 * <p>Threading: {@link #call} is called by up to {@link BenchPlan#concurrency()} threads at once
 * and MUST be safe for that; {@link #close()} is called once, after every caller returned.
 */
interface BenchChannel extends AutoCloseable {
    /**
     * call() - sends the NULL call number {@code index} and waits for its reply.
     *
     * @param index the call's number within the run, 0-based, unique (the xid is derived from it)
     * @param timeout the longest wait for the reply
     * @throws InterruptedException when the calling thread is interrupted (the run is stopping)
     * @throws Exception any failure of the call: no reply in time, an RPC error, a broken
     *         connection
     */
    void call(int index, Duration timeout) throws Exception;

    /** Releases the connection; never throws. */
    @Override
    void close();
}
