package org.rpcrdma4j.server;

/**
 * HostServerStatistics - what became of the calls the host server's dispatcher saw since it
 * started, over every transport it dispatches (RPC-over-RDMA; oncrpc4j's TCP service dispatches
 * its calls itself and shares only the malformed-header count). Registered as an OSGi service by
 * the host server's component, for the console ({@code rpcrdma:transports}) and JMX.
 */
public interface HostServerStatistics {

    /** Calls handed to a program. */
    long dispatchedCalls();

    /** Calls whose program failed: rejected, undecodable arguments (GARBAGE_ARGS), or a system error. */
    long failedCalls();

    /** Calls whose program threw an {@link Error} (counted in {@link #failedCalls()} too): answered SYSTEM_ERR. */
    long programErrorCalls();

    /**
     * Messages whose RPC header claimed lengths it does not hold (calls denied AUTH_ERROR or
     * dropped, backward replies whose call was failed), over RDMA and oncrpc4j's TCP service.
     */
    long malformedMessages();

    /** Calls refused because their connection already had its bound of calls waiting for a worker. */
    long callsRefusedOverConnectionBound();

    /**
     * Times a worker thread that waited for a call was woken: a thread wake-up by the operating
     * system per call that found no worker running. Set against {@link #dispatchedCalls()} it is
     * the hand-off's cost per call (calls a transport's own thread ran need none).
     */
    long workerWakeups();

    /**
     * Calls accepted with an AUTH_SYS credential decoded for an earlier call (the same bytes):
     * their credential cost no decoding. Set against {@link #dispatchedCalls()} it says how
     * often a call's identity came from the credential table.
     */
    long callsWithKeptCredential();
}
