package org.rpcrdma4j.verbs.conformance;

import org.rpcrdma4j.verbs.QueuePairAttributes;

/**
 * Queue pair settings of a test connection (both sides alike).
 *
 * @param sendQueueDepth send queue depth
 * @param receiveQueueDepth receive queue depth
 * @param maxSge SGEs per request
 * @param maxInlineData inline bytes
 * @param rnrRetryCount RNR retries (7 = infinite)
 * @param completionQueueCapacity entries of each side's completion queue
 */
public record PairOptions(int sendQueueDepth, int receiveQueueDepth, int maxSge, int maxInlineData, int rnrRetryCount, int completionQueueCapacity) {
    /** @return depth 16, 2 SGEs, no inline data, infinite RNR retry, 64 completion entries */
    public static PairOptions defaults() {
        return new PairOptions(16, 16, 2, 0, QueuePairAttributes.RNR_RETRY_INFINITE, 64);
    }

    /** @return these options with another RNR retry count */
    public PairOptions withRnrRetryCount(int count) {
        return new PairOptions(sendQueueDepth, receiveQueueDepth, maxSge, maxInlineData, count, completionQueueCapacity);
    }

    /** @return these options with other queue depths */
    public PairOptions withDepths(int send, int receive) {
        return new PairOptions(send, receive, maxSge, maxInlineData, rnrRetryCount, completionQueueCapacity);
    }

    /** @return these options with another completion queue capacity */
    public PairOptions withCompletionQueueCapacity(int capacity) {
        return new PairOptions(sendQueueDepth, receiveQueueDepth, maxSge, maxInlineData, rnrRetryCount, capacity);
    }

    /** @return these options with inline data */
    public PairOptions withMaxInlineData(int bytes) {
        return new PairOptions(sendQueueDepth, receiveQueueDepth, maxSge, bytes, rnrRetryCount, completionQueueCapacity);
    }
}
