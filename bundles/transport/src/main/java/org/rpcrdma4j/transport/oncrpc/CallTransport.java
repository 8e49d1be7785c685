package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.atomic.AtomicBoolean;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;

/**
 * CallTransport - one received call on its way through a worker: the task the worker runs
 * ({@link #run()}) and the {@code RpcTransport} oncrpc4j sends the call's reply through
 * ({@link #send}), which frames it for RPC-over-RDMA through the call's {@link PendingReply}.
 * Addresses are the connection's real ones (nfs4j checks exports against
 * {@link #getRemoteSocketAddress()}).
 *
 * <p>Ownership: holds the {@link ReceivedCall} (its body is what the program decodes, in place)
 * until the reply is sent or the call is finished without one; exactly one of the two happens.
 * The first REPLY sent is this call's reply; a second one fails its handler with an exception
 * that says why; a CALL message goes to the connection's back channel
 * ({@link #getPeerTransport()}). Threading: any thread.
 */
final class CallTransport extends ConnectionTransport implements Runnable {
    private final CallBridge bridge;
    private final PendingReply reply;
    private final ReceivedCall call;
    private final int program;
    private final int version;
    private final int procedure;
    private final ReplyCache.Key cacheKey;
    private final AtomicBoolean answered = new AtomicBoolean();

    CallTransport(CallBridge bridge, PendingReply reply, ReceivedCall call, int program, int version, int procedure,
                  ReplyCache.Key cacheKey) {
        super(reply.connection());
        this.bridge = bridge;
        this.reply = reply;
        this.call = call;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.cacheKey = cacheKey;
    }

    /** run() - on a worker: decode and serve the call. */
    @Override
    public void run() {
        bridge.serve(this);
    }

    PendingReply reply() {
        return reply;
    }

    ReceivedCall call() {
        return call;
    }

    int program() {
        return program;
    }

    int version() {
        return version;
    }

    int procedure() {
        return procedure;
    }

    ReplyCache.Key cacheKey() {
        return cacheKey;
    }

    /** @return true for the one caller that may answer (or finish) this call */
    boolean takeAnswer() {
        return answered.compareAndSet(false, true);
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ByteBuffer message = xdr instanceof CallXdr ? ((CallXdr) xdr).encoded() : xdr.asBuffer().toByteBuffer();
        int length = message.remaining();
        if (RpcMessages.messageType(message) != RpcMessages.REPLY) {
            getPeerTransport().send(xdr, attachment, handler);
            return;
        }
        if (!takeAnswer()) {
            handler.failed(new IOException("call xid 0x" + Integer.toHexString(reply.xid()) + " from "
                    + reply.connection().remoteAddress() + " was already answered"), attachment);
            return;
        }
        try {
            bridge.sendReply(this, message);
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
