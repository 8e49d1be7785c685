package org.rpcrdma4j.benchmarks.hosted;

import java.time.Duration;

/**
 * RpcChannel - one client connection to the benchmark server, over RPC-over-RDMA or TCP.
 *
 * <p>Threading: one thread at a time (the benchmark thread). Ownership: the creator closes it.
 */
interface RpcChannel extends AutoCloseable {
    /** How long one call may take before the invocation fails. */
    Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    /**
     * run() - sends every call of the workload (xids {@code xid}, {@code xid + 1}, ...) before
     * waiting for any reply, then waits for all and checks each with {@link BenchRpc#isAnswered}.
     *
     * @return how many replies failed the check (a missing reply is an exception instead)
     * @throws Exception when a call cannot be sent or is not answered in {@link #CALL_TIMEOUT}
     */
    int run(Workload workload, int xid) throws Exception;

    /**
     * wholeReply() - one call of the workload with this xid, answered with the complete RPC reply
     * as the server encoded it (over RDMA, the write chunk's data put back in place of the DDP
     * item, RFC 8166 §3.4.5), for the byte-exact check.
     *
     * @throws IllegalStateException when the reply did not travel the way the workload requires
     */
    byte[] wholeReply(Workload workload, int xid) throws Exception;

    @Override
    void close() throws Exception;
}
