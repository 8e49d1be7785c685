package org.rpcrdma4j.transport.internal.sendto;

import org.rpcrdma4j.codec.ReplyEncoder;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;

/**
 * ErrorReplies - answer a message this side cannot process with RDMA_ERROR (RFC 8166 §4.5).
 *
 * <p>ERR_VERS echoes the requester's version field (as Linux does) and offers version 1 only;
 * ERR_CHUNK is a version 1 header. Both grant the connection's credits. When no send buffer is
 * free the answer is dropped and counted; the requester then times out and retransmits. Used
 * under the connection's send lock.
 */
public final class ErrorReplies {
    private final ReplyEncoder encoder = new ReplyEncoder();
    private final SendQueue sendQueue;
    private final Counters counters;
    private final int credits;

    public ErrorReplies(SendQueue sendQueue, Counters counters, int credits) {
        this.sendQueue = sendQueue;
        this.counters = counters;
        this.credits = credits;
    }

    /**
     * sendErrVers() - answer a header of an unsupported version.
     *
     * @return false when the post failed (the connection must close)
     */
    public boolean sendErrVers(int xid, int vers) {
        SendContext ctx = sendQueue.acquire();
        if (ctx == null) {
            return true;
        }
        int n = encoder.encodeErrVers(ctx.buffer(), 0, ctx.buffer().capacity(), xid, vers, credits,
                RpcRdma.VERSION_1, RpcRdma.VERSION_1);
        ctx.prepareSend(n);
        counters.increment(Counter.ERR_VERS_SENT);
        return sendQueue.send(ctx);
    }

    /**
     * sendErrChunk() - answer a header whose chunks cannot be parsed or processed.
     *
     * @return false when the post failed (the connection must close)
     */
    public boolean sendErrChunk(int xid) {
        SendContext ctx = sendQueue.acquire();
        if (ctx == null) {
            return true;
        }
        int n = encoder.encodeErrChunk(ctx.buffer(), 0, ctx.buffer().capacity(), xid, credits);
        ctx.prepareSend(n);
        counters.increment(Counter.ERR_CHUNK_SENT);
        return sendQueue.send(ctx);
    }
}
