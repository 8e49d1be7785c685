package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.internal.common.BoundedPool;

/**
 * CallTransport - one received call on its way through a worker: the task the worker runs
 * ({@link #run()}), the {@code RpcTransport} oncrpc4j sends the call's reply through
 * ({@link #send}), which frames it for RPC-over-RDMA through the call's {@link PendingReply},
 * and the call's {@link CallXdr}. Addresses are the connection's real ones (nfs4j checks exports
 * against {@link #getRemoteSocketAddress()}).
 *
 * <p>Pooled per connection ({@link BoundedPool}, one per connection): {@link #begin} takes it up for a call
 * with two holds, one for the worker that serves the call and one for the call's answer; the
 * worker gives its hold back when {@link CallBridge#serve} returns, the answer when the reply is
 * sent or the call finished without one; the last hold returns it to its pool. So a program
 * still running, or a reply still being sent, never finds it taken by another call.
 *
 * <p>Ownership: holds the {@link ReceivedCall} (its body is what the program decodes, in place)
 * until the reply is sent or the call is finished without one; exactly one of the two happens.
 * The first REPLY sent is this call's reply; a second one (or a reply whose xid is not the
 * call's) fails its handler with an exception that says why; a CALL message goes to the
 * connection's back channel ({@link #getPeerTransport()}). Threading: any thread.
 */
final class CallTransport extends ConnectionTransport implements Runnable {
    private final CallBridge bridge;
    /** The pool this transport returns to; null for one made beyond the pool's bound. */
    private final BoundedPool<CallTransport> pool;
    private final CallXdr xdr = new CallXdr();
    private final BodyWrapper body = new BodyWrapper();
    /** The last length boxed for a send handler, reused while replies keep their length. */
    private Integer boxedLength;
    private final AtomicInteger holds = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private volatile PendingReply reply;
    private ReceivedCall call;
    private int program;
    private int version;
    private int procedure;
    private ReplyCache.Key cacheKey;

    CallTransport(CallBridge bridge, RdmaConnection connection, BoundedPool<CallTransport> pool) {
        super(connection);
        this.bridge = bridge;
        this.pool = pool;
    }

    /** begin() - take this transport up for {@code call}: two holds, the worker's and the answer's. */
    CallTransport begin(PendingReply reply, ReceivedCall call, int program, int version, int procedure,
                        ReplyCache.Key cacheKey) {
        if (!holds.compareAndSet(0, 2)) {
            throw new IllegalStateException(this + " taken from its pool while in use");
        }
        this.call = call;
        this.program = program;
        this.version = version;
        this.procedure = procedure;
        this.cacheKey = cacheKey;
        answered.set(0);
        this.reply = reply;
        return this;
    }

    /** run() - on a worker: decode and serve the call, then give the worker's hold back. */
    @Override
    public void run() {
        try {
            bridge.serve(this);
        } finally {
            releaseHold();
        }
    }

    /**
     * releaseHold() - one of the two holds is done (the worker's, or the answer's once the reply
     * is sent or the call finished without one); the last returns this transport to its pool.
     */
    void releaseHold() {
        int left = holds.decrementAndGet();
        if (left > 0) {
            return;
        }
        if (left < 0) {
            throw new IllegalStateException(this + " released more often than held");
        }
        reply = null;
        call = null;
        cacheKey = null;
        xdr.reset();
        body.forget();
        if (pool != null) {
            pool.release(this);
        }
    }

    /**
     * xdr() - the call's XDR stream over its body, read in place (an inline call's one view
     * through this transport's reused wrapper, from the view's position), encoding its reply
     * into the pending reply's memory, sized up front for the DDP item the reply will carry
     * ({@link CallBridge#replyItemBytes}).
     */
    CallXdr xdr(List<ByteBuffer> views) {
        int itemBytes = bridge.replyItemBytes(reply, program, version, procedure);
        if (views.size() == 1) {
            ByteBuffer view = views.get(0);
            return xdr.begin(body.wrap(view), view.position(), reply, itemBytes);
        }
        return xdr.begin(bridge.wrap(views), 0, reply, itemBytes);
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
        return answered.compareAndSet(0, 1);
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ByteBuffer message = xdr == this.xdr ? this.xdr.encoded() : xdr.asBuffer().toByteBuffer();
        int length = message.remaining();
        if (!RpcMessage.isReply(message)) {
            getPeerTransport().send(xdr, attachment, handler);
            return;
        }
        PendingReply pending = reply;
        if (pending == null || length < Integer.BYTES || message.getInt(message.position()) != pending.xid()
                || !takeAnswer()) {
            handler.failed(new IOException("reply xid 0x" + (length < Integer.BYTES ? "?"
                    : Integer.toHexString(message.getInt(message.position()))) + " to "
                    + connection().remoteAddress() + " not sent: its call was already answered"), attachment);
            return;
        }
        try {
            bridge.sendReply(this, message);
        } catch (IllegalStateException e) {
            handler.failed(new IOException("reply to call xid 0x" + Integer.toHexString(pending.xid()) + " over RDMA to "
                    + connection().remoteAddress() + " not sent: " + e.getMessage(), e), attachment);
            return;
        }
        Integer boxed = boxedLength;
        if (boxed == null || boxed != length) {
            boxed = length;
            boxedLength = boxed;
        }
        handler.completed(boxed, attachment);
    }

    @Override
    public RpcTransport getPeerTransport() {
        return bridge.backchannel(connection());
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return bridge.backchannel(connection()).getReplyQueue();
    }

    @Override
    public String toString() {
        return "rdma[" + connection().remoteAddress() + " -> " + connection().localAddress() + "]";
    }
}
