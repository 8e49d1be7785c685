package org.rpcrdma4j.transport.internal.connection;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.QueuePairAttributes;

/**
 * QueuePairSizing - the queue depths, SGE limits and READ depth of a connection, from the
 * configuration clamped to what the device can do.
 *
 * <p>Send queue: every send buffer twice (its SEND, and on average one RDMA WRITE of reply data;
 * replies needing more wait for slots) plus a full READ chain (REG_MR, READ, LOCAL_INV) for each READ
 * the ORD limit allows. Receive queue: credits, plus the back channel's credits (RFC 8167: the
 * client's replies to backward calls take receives too), plus one repost batch. The completion queue holds
 * both. Immutable.
 */
public record QueuePairSizing(int sendQueueDepth, int receiveQueueDepth, int outstandingReads, int maxReadSge,
                       int maxSendSge) {

    /**
     * of() - size a connection for a device.
     *
     * @throws IllegalArgumentException when the device cannot hold the configured receive queue
     */
    public static QueuePairSizing of(TransportConfig config, DeviceCapabilities caps) {
        int ord = Math.min(config.maxOutstandingReads(), caps.maxOutstandingReads());
        int receiveDepth = Math.min(config.receiveContexts(), config.credits() + config.backchannelCredits()
                + config.repostBatch());
        if (receiveDepth > caps.maxQueueDepth()) {
            throw new IllegalArgumentException("credits (" + config.credits() + ") and backchannelCredits ("
                    + config.backchannelCredits() + ") exceed the device's queue depth " + caps.maxQueueDepth());
        }
        int sendDepth = Math.min(caps.maxQueueDepth(), 2 * config.sendBuffers() + ord * ReadRequestChain.MAX_REQUESTS);
        ord = Math.min(ord, Math.max(1, (sendDepth - 1) / ReadRequestChain.MAX_REQUESTS));
        int readSge = readSgeLimit(caps);
        return new QueuePairSizing(sendDepth, receiveDepth, ord, readSge, Math.min(caps.maxSendSge(), Math.max(4, readSge)));
    }

    /**
     * The RNR retry count the server asks for: the largest finite one. A client that stops
     * posting receives then fails our reply SEND with RNR_RETRY_EXCEEDED, which closes only its
     * connection, instead of holding it for ever. (On InfiniBand the IB CM applies the count of the
     * client's connect request instead, which may be the infinite 7: the stall deadline of
     * {@link ConnectionState} closes such a connection regardless.)
     */
    static final int SERVER_RNR_RETRY = 6;

    /**
     * readSgeLimit() - the most SGEs one READ may carry: the device's READ limit, within the send
     * SGE limit that every send-queue request of the queue pair obeys.
     */
    public static int readSgeLimit(DeviceCapabilities caps) {
        return Math.min(caps.maxReadSge(), caps.maxSendSge());
    }

    int completionQueueCapacity() {
        return sendQueueDepth + receiveQueueDepth;
    }

    QueuePairAttributes attributes(CompletionQueue cq) {
        return QueuePairAttributes.builder(cq, cq)
                .sendQueueDepth(sendQueueDepth)
                .receiveQueueDepth(receiveQueueDepth)
                .maxSendSge(maxSendSge)
                .maxReceiveSge(1)
                .initiatorDepth(outstandingReads)
                .responderResources(1)
                .rnrRetryCount(SERVER_RNR_RETRY)
                .build();
    }
}
