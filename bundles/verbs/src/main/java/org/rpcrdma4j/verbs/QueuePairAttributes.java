package org.rpcrdma4j.verbs;

import java.util.Objects;

/**
 * How to create a reliable-connected queue pair: its completion queues, queue depths, SGE limits,
 * inline size, READ depths and RNR retry count. Immutable; built with {@link #builder}.
 */
public final class QueuePairAttributes {
    /** The RNR retry count meaning "retry for ever" (InfiniBand's 7). */
    public static final int RNR_RETRY_INFINITE = 7;

    private final CompletionQueue sendCompletionQueue;
    private final CompletionQueue receiveCompletionQueue;
    private final int sendQueueDepth;
    private final int receiveQueueDepth;
    private final int maxSendSge;
    private final int maxReceiveSge;
    private final int maxInlineData;
    private final int initiatorDepth;
    private final int responderResources;
    private final int rnrRetryCount;

    private QueuePairAttributes(Builder b) {
        sendCompletionQueue = b.sendCompletionQueue;
        receiveCompletionQueue = b.receiveCompletionQueue;
        sendQueueDepth = b.sendQueueDepth;
        receiveQueueDepth = b.receiveQueueDepth;
        maxSendSge = b.maxSendSge;
        maxReceiveSge = b.maxReceiveSge;
        maxInlineData = b.maxInlineData;
        initiatorDepth = b.initiatorDepth;
        responderResources = b.responderResources;
        rnrRetryCount = b.rnrRetryCount;
    }

    /**
     * Starts attributes for a queue pair completing into the given queues (they may be the same).
     *
     * @param sendCompletionQueue where send-queue requests complete
     * @param receiveCompletionQueue where receives complete
     * @return a builder with depth 16, 1 SGE, no inline data, 1 READ each way, infinite RNR retry
     */
    public static Builder builder(CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue) {
        return new Builder(sendCompletionQueue, receiveCompletionQueue);
    }

    /** @return the completion queue of the send queue */
    public CompletionQueue sendCompletionQueue() {
        return sendCompletionQueue;
    }

    /** @return the completion queue of the receive queue */
    public CompletionQueue receiveCompletionQueue() {
        return receiveCompletionQueue;
    }

    /** @return the most send requests outstanding at once (max_send_wr) */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** @return the most receives posted at once (max_recv_wr) */
    public int receiveQueueDepth() {
        return receiveQueueDepth;
    }

    /** @return the most SGEs per send request */
    public int maxSendSge() {
        return maxSendSge;
    }

    /** @return the most SGEs per receive */
    public int maxReceiveSge() {
        return maxReceiveSge;
    }

    /** @return the most bytes a SEND may carry inline */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** @return the most RDMA READs this side has in flight (ORD, initiator_depth) */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /** @return the most RDMA READs this side serves at once (IRD, responder_resources) */
    public int responderResources() {
        return responderResources;
    }

    /** @return the RNR retry count, 0..7, 7 = infinite */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /** Builds {@link QueuePairAttributes}; configuration errors are IllegalArgumentExceptions. */
    public static final class Builder {
        private final CompletionQueue sendCompletionQueue;
        private final CompletionQueue receiveCompletionQueue;
        private int sendQueueDepth = 16;
        private int receiveQueueDepth = 16;
        private int maxSendSge = 1;
        private int maxReceiveSge = 1;
        private int maxInlineData;
        private int initiatorDepth = 1;
        private int responderResources = 1;
        private int rnrRetryCount = RNR_RETRY_INFINITE;

        private Builder(CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue) {
            this.sendCompletionQueue = Objects.requireNonNull(sendCompletionQueue, "sendCompletionQueue");
            this.receiveCompletionQueue = Objects.requireNonNull(receiveCompletionQueue, "receiveCompletionQueue");
        }

        /**
         * @param depth send and receive queue depth, positive
         * @return this builder
         */
        public Builder sendQueueDepth(int depth) {
            this.sendQueueDepth = positive("sendQueueDepth", depth);
            return this;
        }

        /**
         * @param depth receive queue depth, positive
         * @return this builder
         */
        public Builder receiveQueueDepth(int depth) {
            this.receiveQueueDepth = positive("receiveQueueDepth", depth);
            return this;
        }

        /**
         * @param max SGEs per send request, positive
         * @return this builder
         */
        public Builder maxSendSge(int max) {
            this.maxSendSge = positive("maxSendSge", max);
            return this;
        }

        /**
         * @param max SGEs per receive, positive
         * @return this builder
         */
        public Builder maxReceiveSge(int max) {
            this.maxReceiveSge = positive("maxReceiveSge", max);
            return this;
        }

        /**
         * @param max inline bytes per SEND, not negative
         * @return this builder
         */
        public Builder maxInlineData(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxInlineData must not be negative: " + max);
            }
            this.maxInlineData = max;
            return this;
        }

        /**
         * @param depth RDMA READs in flight as initiator (ORD), positive
         * @return this builder
         */
        public Builder initiatorDepth(int depth) {
            this.initiatorDepth = positive("initiatorDepth", depth);
            return this;
        }

        /**
         * @param resources RDMA READs served at once as responder (IRD), positive
         * @return this builder
         */
        public Builder responderResources(int resources) {
            this.responderResources = positive("responderResources", resources);
            return this;
        }

        /**
         * @param count RNR retries before {@link CompletionStatus#RNR_RETRY_EXCEEDED}, 0..7 (7 =
         *        infinite)
         * @return this builder
         */
        public Builder rnrRetryCount(int count) {
            if (count < 0 || count > RNR_RETRY_INFINITE) {
                throw new IllegalArgumentException("rnrRetryCount must be within 0..7: " + count);
            }
            this.rnrRetryCount = count;
            return this;
        }

        /** @return the attributes */
        public QueuePairAttributes build() {
            return new QueuePairAttributes(this);
        }

        private static int positive(String name, int value) {
            if (value <= 0) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
