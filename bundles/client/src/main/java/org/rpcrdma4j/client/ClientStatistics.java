package org.rpcrdma4j.client;

/**
 * A snapshot of a client's counters. Immutable.
 *
 * @param callsSent calls posted (every mode, raw sends included)
 * @param inlineCalls calls sent as RDMA_MSG
 * @param nomsgCalls calls sent as RDMA_NOMSG
 * @param readChunks DDP read chunks offered (the position-zero chunk not counted)
 * @param repliesReceived replies matched to a call (RDMA_ERROR included)
 * @param rdmaErrors RDMA_ERROR replies
 * @param malformedReplies replies failed as malformed
 * @param unmatchedReplies receives whose xid matched no outstanding call (dropped)
 * @param maxOutstanding the most calls outstanding at once
 * @param creditLimit the credit grant in force
 * @param registrations memory regions registered
 * @param deregistrations memory regions deregistered
 * @param backwardCalls backward calls (RFC 8167, from the server) handed to the callback handler
 * @param backwardReplies replies to backward calls posted
 * @param backwardCallsDropped backward calls dropped: no handler registered, beyond the granted
 *        backward credits, or carrying chunks
 */
public record ClientStatistics(
        long callsSent,
        long inlineCalls,
        long nomsgCalls,
        long readChunks,
        long repliesReceived,
        long rdmaErrors,
        long malformedReplies,
        long unmatchedReplies,
        int maxOutstanding,
        int creditLimit,
        long registrations,
        long deregistrations,
        long backwardCalls,
        long backwardReplies,
        long backwardCallsDropped) {

    /** @return memory regions registered and not yet deregistered */
    public long liveRegistrations() {
        return registrations - deregistrations;
    }
}
