package org.rpcrdma4j.transport.internal.connection;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.backchannel.ConnectionBackchannel;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.read.ReadScheduler;
import org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivePool;
import org.rpcrdma4j.transport.internal.sendto.ErrorReplies;
import org.rpcrdma4j.transport.internal.sendto.ReplySender;
import org.rpcrdma4j.transport.internal.sendto.ReplyStaging;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ConnectionParts - the parts of one connection, made and wired to each other when it opens:
 * completion queue, receive pool, its share of the loop's reply staging, send queue, message
 * dispatcher, reply sender, READ scheduler, queue pair and completion sorter; and their release,
 * once, whether the open failed half-way ({@link #releaseHalfMade}) or the connection closed
 * ({@link #release}).
 *
 * <p>Threading: the connection's loop; the fields are set once by {@link #wire}, before the
 * connection is accepted, and read by its owner afterwards.
 */
final class ConnectionParts {
    CompletionQueue completionQueue;
    ReceivePool receivePool;
    /** This connection's share of the loop's reply staging slab. */
    ReplyStaging replyStaging;
    SendQueue sendQueue;
    MessageDispatcher dispatcher;
    ReplySender replySender;
    ReadScheduler<ReceiveContext> readScheduler;
    QueuePair queuePair;
    CompletionSorter sorter;
    private final Counters counters;

    ConnectionParts(Counters counters) {
        this.counters = counters;
    }

    /**
     * wire() - make every part, in the order they need each other. On failure the parts made so
     * far stay set, for {@link #releaseHalfMade}.
     *
     * @param inlineSend most bytes of a reply sent inline (our setting capped by the client's receive size)
     * @throws VerbsException when the device refuses
     */
    void wire(ConnectionState owner, ConnectionLoop loop, Connection connection, DeviceResources device,
            TransportConfig config, QueuePairSizing sizing, int inlineSend, ConnectionBackchannel backchannel,
            SendSide sendSide) throws VerbsException {
        completionQueue = loop.createCompletionQueue(device.device(), sizing.completionQueueCapacity());
        receivePool = new ReceivePool(owner, device.protectionDomain(), config.receiveContexts(),
                config.inlineReceiveThreshold(), config.credits() + config.backchannelCredits(), config.repostBatch(),
                config.limits(), counters);
        replyStaging = new ReplyStaging(device.replyStaging(), config.credits(), counters);
        sendQueue = new SendQueue(device.protectionDomain(), sizing.sendQueueDepth(), config.sendBuffers(),
                inlineSend, sizing.maxSendSge(), replyStaging, counters, loop.repliesInTransit());
        ErrorReplies errorReplies = new ErrorReplies(sendQueue, counters, config.credits());
        dispatcher = new MessageDispatcher(owner, loop, device, receivePool, errorReplies, counters, backchannel);
        replySender = new ReplySender(sendQueue,
                replyStaging, errorReplies, counters, sendSide.replyLatency(), loop.repliesInTransit(), config.credits(),
                Math.min(owner.replySizeLimit(), sendQueue.bufferLength()));
        readScheduler = new ReadScheduler<>(sizing.outstandingReads(), sizing.maxReadSge(), config.receiveContexts(),
                config.credits(), config.limits().maxReadBytes(), sendQueue, counters, dispatcher);
        dispatcher.attach(readScheduler);
        queuePair = connection.createQueuePair(device.protectionDomain(), sizing.attributes(completionQueue));
        sendQueue.attach(queuePair);
        sendSide.attach(receivePool, sendQueue, replySender, queuePair);
        sorter = new CompletionSorter(owner, completionQueue, receivePool, sendQueue, readScheduler, dispatcher, counters);
    }

    /** @return true while send-queue requests (SENDs, WRITEs, READ chains) or READs await their completions */
    boolean requestsOutstanding() {
        return sendQueue.outstanding() > 0 || readScheduler.inFlight() > 0;
    }

    /** releaseHalfMade() - the open failed: release what {@link #wire} made (the connection is already closed). */
    void releaseHalfMade() {
        if (receivePool != null) {
            receivePool.forgetPosted();
        }
        closeQuietly(completionQueue);
        if (receivePool != null) {
            receivePool.deregister();
        }
        if (sendQueue != null) {
            sendQueue.deregister();
        }
    }

    /** release() - the connection closed and its work flushed (or was reclaimed): release every part. */
    void release() {
        receivePool.forgetPosted();
        closeQuietly(completionQueue);
        receivePool.deregister();
        sendQueue.deregister();
        replyStaging.close();
    }

    private void closeQuietly(CompletionQueue cq) {
        if (cq == null) {
            return;
        }
        try {
            cq.close();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
    }
}
