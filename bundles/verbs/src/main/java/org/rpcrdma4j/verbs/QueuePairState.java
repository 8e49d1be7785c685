package org.rpcrdma4j.verbs;

/** The state of a {@link QueuePair} (enum ibv_qp_state, the states this contract exposes). */
public enum QueuePairState {
    /** Created; receives may be posted, sends may not. */
    INIT,
    /** Ready to send: connected; both queues work. */
    READY_TO_SEND,
    /**
     * Error: after an error completion, a disconnect or a lost link. Every outstanding request
     * completes with {@link CompletionStatus#WORK_REQUEST_FLUSHED}, and so does every request
     * posted afterwards. Terminal for this contract: the connection is to be closed.
     */
    ERROR
}
