package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.atomic.AtomicBoolean;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.PendingReply;

/**
 * CallTransport - the {@link RpcTransport} one received call is dispatched with: oncrpc4j sends
 * the call's reply through {@link #send}, which frames it for RPC-over-RDMA through the call's
 * {@link PendingReply}. Addresses are the connection's real ones (nfs4j checks exports against
 * {@link #getRemoteSocketAddress()}).
 *
 * <p>The first REPLY sent is this call's reply; a second one fails its handler with an exception
 * that says why; a CALL message goes to the connection's back channel
 * ({@link #getPeerTransport()}). Threading: any thread.
 */
final class CallTransport extends ConnectionTransport {
    private final CallBridge bridge;
    private final PendingReply reply;
    private final int program;
    private final int version;
    private final int procedure;
    private final ReplyCache.Key cacheKey;
    private final AtomicBoolean answered = new AtomicBoolean();

    CallTransport(CallBridge bridge, PendingReply reply, int[] target, ReplyCache.Key cacheKey) {
        super(reply.connection());
        this.bridge = bridge;
        this.reply = reply;
        this.program = target[0];
        this.version = target[1];
        this.procedure = target[2];
        this.cacheKey = cacheKey;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ByteBuffer message = xdr.asBuffer().toByteBuffer();
        int length = message.remaining();
        if (RpcMessages.messageType(message) != RpcMessages.REPLY) {
            getPeerTransport().send(xdr, attachment, handler);
            return;
        }
        if (!answered.compareAndSet(false, true)) {
            handler.failed(new IOException("call xid 0x" + Integer.toHexString(reply.xid()) + " from "
                    + reply.connection().remoteAddress() + " was already answered"), attachment);
            return;
        }
        try {
            bridge.sendReply(reply, message, program, version, procedure, cacheKey);
        } catch (IllegalStateException e) {
            handler.failed(new IOException("reply to call xid 0x" + Integer.toHexString(reply.xid()) + " over RDMA to "
                    + reply.connection().remoteAddress() + " not sent: " + e.getMessage(), e), attachment);
            return;
        }
        handler.completed(length, attachment);
    }

    @Override
    public RpcTransport getPeerTransport() {
        return bridge.backchannel(reply.connection());
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return bridge.backchannel(reply.connection()).getReplyQueue();
    }

    @Override
    public String toString() {
        return "rdma[" + reply.connection().remoteAddress() + " -> " + reply.connection().localAddress() + "]";
    }
}
