package org.rpcrdma4j.shell;

/**
 * HostServerMXBean - the host server's call counters in JMX ({@code org.rpcrdma4j:type=HostServer}),
 * read live at each attribute get ({@link HostServerCounters}).
 */
public interface HostServerMXBean {

    /** Calls handed to a program. */
    long getDispatchedCalls();

    /** Calls whose program failed: rejected, GARBAGE_ARGS or a system error. */
    long getFailedCalls();

    /** Calls whose program threw an Error (answered SYSTEM_ERR). */
    long getProgramErrorCalls();

    /** Messages whose RPC header claimed lengths it does not hold. */
    long getMalformedMessages();

    /** Calls refused over the per-connection queue bound. */
    long getCallsRefusedOverConnectionBound();

    /** Times a worker waiting for a call was woken (a thread wake-up per call that found no worker running). */
    long getWorkerWakeups();

    /** Calls accepted with an AUTH_SYS credential decoded for an earlier call (no decoding of their own). */
    long getCallsWithKeptCredential();
}
