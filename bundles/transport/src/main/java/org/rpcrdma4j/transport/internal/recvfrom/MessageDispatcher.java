package org.rpcrdma4j.transport.internal.recvfrom;

import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.read.ReadPlanner;
import org.rpcrdma4j.transport.internal.read.ReadScheduler;
import org.rpcrdma4j.transport.internal.read.SinkPools;
import org.rpcrdma4j.transport.internal.sendto.ErrorReplies;

/**
 * MessageDispatcher - what one connection does with each message received: decode it, answer
 * what cannot be served with RDMA_ERROR, drop what must not be answered, hand inline calls on at
 * once and defer calls with read chunks until their READs complete.
 *
 * <p>Every outcome is a counter; nothing throws through the completion loop. A bad message
 * never closes the connection: only a failed post or a failed READ does. Confined to the
 * completion thread.
 */
public final class MessageDispatcher implements ReadScheduler.Listener<ReceiveContext> {
    private final ReceivingConnection connection;
    private final ReceivingLoop loop;
    private final SinkPools device;
    private final ReceivePool receivePool;
    private final ErrorReplies errorReplies;
    private final Counters counters;
    private final BackwardReplies backchannel;
    private ReadScheduler<ReceiveContext> readScheduler;

    /**
     * @param connection the connection the messages arrive on
     * @param loop the completion loop that receives them: decoder, strategy, handler
     * @param device the READ sink pools of the connection's device
     * @param backchannel where RPC replies to the server's backward calls go
     */
    public MessageDispatcher(ReceivingConnection connection, ReceivingLoop loop, SinkPools device, ReceivePool receivePool,
                      ErrorReplies errorReplies, Counters counters, BackwardReplies backchannel) {
        this.connection = connection;
        this.loop = loop;
        this.device = device;
        this.receivePool = receivePool;
        this.errorReplies = errorReplies;
        this.counters = counters;
        this.backchannel = backchannel;
    }

    /** attach() - the scheduler deferred calls go to (it reports back to this dispatcher). */
    public void attach(ReadScheduler<ReceiveContext> scheduler) {
        this.readScheduler = scheduler;
    }

    /**
     * onMessage() - a receive completed with {@code byteCount} bytes in {@code ctx}'s buffer.
     *
     * <p>Ownership: the context passes to this method; it is recycled, deferred or delivered.
     */
    public void onMessage(ReceiveContext ctx, int byteCount) {
        ctx.markReceived(System.nanoTime());
        counters.incrementOwned(Counter.RECEIVES);
        ParsedHeader header = ctx.header();
        DecodeStatus status = loop.decoder().decode(ctx.buffer(), 0, byteCount, header);
        switch (status.outcome()) {
            case OK:
                onValidMessage(ctx);
                return;
            case WRONG_VERSION:
                reply(errorReplies.sendErrVers(header.xid(), header.vers()));
                break;
            default:
                onMalformedMessage(status, byteCount, header);
                break;
        }
        receivePool.recycle(ctx);
    }

    /** onMalformedMessage() - ERR_CHUNK, unless there is no xid or the message is itself an error. */
    private void onMalformedMessage(DecodeStatus status, int byteCount, ParsedHeader header) {
        if (status == DecodeStatus.TRUNCATED_FIXED_HEADER && byteCount < Integer.BYTES) {
            counters.increment(Counter.TRUNCATED_DROPPED);
        } else if (header.vers() == RpcRdma.VERSION_1 && header.proc() == RpcRdma.RDMA_ERROR) {
            counters.increment(Counter.CLIENT_ERRORS_DROPPED);
        } else {
            if (status == DecodeStatus.MSGP_NOT_SUPPORTED) {
                counters.increment(Counter.MSGP_RECEIVED);
            }
            reply(errorReplies.sendErrChunk(header.xid()));
        }
    }

    private void onValidMessage(ReceiveContext ctx) {
        ParsedHeader header = ctx.header();
        switch (header.proc()) {
            case RpcRdma.RDMA_MSG:
            case RpcRdma.RDMA_NOMSG:
                break;
            case RpcRdma.RDMA_DONE:
                counters.increment(Counter.DONE_DROPPED);
                receivePool.recycle(ctx);
                return;
            default:
                counters.increment(Counter.CLIENT_ERRORS_DROPPED);
                receivePool.recycle(ctx);
                return;
        }
        if (backchannel.takeReply(ctx)) {
            // An RPC reply: the client answering a backward call (RFC 8167), not a call.
            receivePool.recycle(ctx);
            return;
        }
        if (header.readList().isEmpty()) {
            ctx.presentInline();
            counters.incrementOwned(Counter.CALLS_INLINE);
            deliver(ctx);
            return;
        }
        if (plan(ctx)) {
            counters.incrementOwned(Counter.CALLS_DEFERRED);
            readScheduler.enqueue(ctx);
        }
    }

    /** @return true when planned; false when answered with ERR_CHUNK and recycled */
    private boolean plan(ReceiveContext ctx) {
        ReadPlanner.Result result = ReadPlanner.plan(ctx, loop.activeStrategy(), device);
        if (result == ReadPlanner.Result.PLANNED) {
            return true;
        }
        counters.increment(result == ReadPlanner.Result.NO_STRATEGY ? Counter.NO_STRATEGY : Counter.READ_PLAN_REFUSED);
        reply(errorReplies.sendErrChunk(ctx.header().xid()));
        receivePool.recycle(ctx);
        return false;
    }

    private void reply(boolean posted) {
        if (!posted) {
            connection.fail("an error reply could not be sent");
        }
    }

    /** deliver() - hand the call to the handler; ownership passes even if it throws. */
    private void deliver(ReceiveContext ctx) {
        counters.incrementOwned(Counter.CALLS_DELIVERED);
        ctx.setState(ReceiveContext.State.DELIVERED);
        try {
            loop.handler().onCall(ctx);
        } catch (RuntimeException e) {
            counters.increment(Counter.HANDLER_ERRORS);
        }
    }

    @Override
    public void onReadsComplete(ReceiveContext ctx) {
        if (!connection.isOpen()) {
            onReadsFailed(ctx);
            return;
        }
        CallAssembler.assemble(ctx);
        if (backchannel.takeAssembledReply(ctx)) {
            // An RPC reply with chunks (RDMA_NOMSG): refused, never taken for a call.
            receivePool.recycle(ctx);
            return;
        }
        deliver(ctx);
    }

    @Override
    public void onReadsFailed(ReceiveContext ctx) {
        counters.increment(Counter.CALLS_DROPPED);
        if (connection.isOpen()) {
            // A local failure (the strategy could not prepare a READ sink) on a connection that
            // goes on: answer, never silence. A failed READ closes the connection instead.
            reply(errorReplies.sendErrChunk(ctx.header().xid()));
        }
        receivePool.recycle(ctx);
    }

    @Override
    public void onReadError(String reason) {
        connection.fail(reason);
    }

    @Override
    public boolean onPoolRetired(ReceiveContext ctx) {
        return plan(ctx);
    }
}
