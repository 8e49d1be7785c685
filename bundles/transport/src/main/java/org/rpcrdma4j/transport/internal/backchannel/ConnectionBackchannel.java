package org.rpcrdma4j.transport.internal.backchannel;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.RpcHeaderCheck;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.PostOutcome;
import org.rpcrdma4j.transport.internal.recvfrom.BackwardReplies;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.sendto.SendContext;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;

/**
 * ConnectionBackchannel - the backward direction of one connection (RFC 8167; the counterpart
 * of Linux's svc_rdma_backchannel.c): backward calls queued by RPC-layer threads, sent inline as
 * RDMA_MSG by the completion thread within the client's backward credits, and the client's
 * replies, told from forward calls by their RPC message type, matched by xid and handed to the
 * {@link RpcCallHandler}.
 *
 * <p>Transport header of a backward call (RFC 8166 §4.2, RFC 8167 §4):
 * <pre>
 *   xid | vers = 1 | credits requested | RDMA_MSG | 0 (no read list) | 0 (no write list) | 0 (no reply chunk) | RPC call
 * </pre>
 *
 * <p>Threading: {@link #send}, {@link #forget} and the getters from any thread; {@link #pump} and
 * {@link #takeReply} on the completion thread only (they assert it); {@link #close} from whichever
 * thread closes the connection (its loop, or a worker whose post failed). The small state is
 * guarded by this object's monitor (backward calls are rare: callbacks, not data); the send
 * queue is touched by the completion thread only.
 */
public final class ConnectionBackchannel implements Backchannel, BackwardReplies {
    /** Words of a backward call's transport header: the fixed four and three empty chunk lists. */
    static final int HEADER_WORDS = RpcRdma.MIN_MSG_HEADER_WORDS;
    static final int HEADER_BYTES = HEADER_WORDS * Integer.BYTES;

    private final RdmaConnection connection;
    private final BackchannelLoop loop;
    private final Counters counters;
    private final int maxCredits;
    private final int sendLimit;
    /** Writes the transport header of each backward call; completion thread only. */
    private final HeaderWriter headerWriter = new HeaderWriter();
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final Set<Integer> outstanding = new HashSet<>();
    private int credits;
    private boolean closed;
    /** Calls the last pump posted (completion thread only). */
    private int pumped;

    /**
     * @param connection the connection (for the handler's upcalls)
     * @param loop the completion loop of the connection: its handler, its wakeup
     * @param counters the connection's counters
     * @param maxCredits backward calls outstanding at most (0: no back channel)
     * @param sendLimit the most bytes one SEND may carry: the client's receive size within our send buffer
     */
    public ConnectionBackchannel(RdmaConnection connection, BackchannelLoop loop, Counters counters, int maxCredits, int sendLimit) {
        this.connection = connection;
        this.loop = loop;
        this.counters = counters;
        this.maxCredits = maxCredits;
        this.sendLimit = sendLimit;
        this.credits = Math.min(1, maxCredits);
    }

    @Override
    public SendOutcome send(ByteBuffer rpcCall) {
        SendOutcome outcome = check(rpcCall);
        if (outcome == SendOutcome.QUEUED) {
            byte[] message = new byte[rpcCall.remaining()];
            rpcCall.duplicate().get(message);
            synchronized (this) {
                if (closed) {
                    outcome = SendOutcome.CLOSED;
                } else if (waiting.size() >= MAX_WAITING) {
                    outcome = SendOutcome.FULL;
                } else {
                    waiting.addLast(new Waiting(rpcCall.getInt(rpcCall.position()), message));
                }
            }
        }
        if (outcome != SendOutcome.QUEUED) {
            counters.increment(Counter.BACKWARD_CALLS_REFUSED);
            return outcome;
        }
        loop.wakeup();
        return outcome;
    }

    private SendOutcome check(ByteBuffer rpcCall) {
        if (maxCredits == 0) {
            return SendOutcome.DISABLED;
        }
        if (!RpcMessage.isCall(rpcCall)) {
            return SendOutcome.NOT_A_CALL;
        }
        if (rpcCall.remaining() > maxCallSize()) {
            return SendOutcome.TOO_LARGE;
        }
        if (!connection.isOpen()) {
            return SendOutcome.CLOSED;
        }
        return SendOutcome.QUEUED;
    }

    @Override
    public void forget(int xid) {
        boolean known;
        synchronized (this) {
            known = outstanding.remove(xid) || removeWaiting(xid);
        }
        if (known) {
            counters.increment(Counter.BACKWARD_TIMEOUTS);
            // A credit may have come free for a waiting call.
            loop.wakeup();
        }
    }

    private boolean removeWaiting(int xid) {
        for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
            if (it.next().xid == xid) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized int credits() {
        return credits;
    }

    @Override
    public synchronized int outstanding() {
        return outstanding.size();
    }

    @Override
    public synchronized int waiting() {
        return waiting.size();
    }

    @Override
    public int maxCallSize() {
        return maxCredits == 0 ? 0 : Math.max(0, sendLimit - HEADER_BYTES);
    }

    /**
     * pump() - send waiting calls, in order, while backward credits and send buffers allow.
     * Completion thread only.
     *
     * @return POSTED when no call is left to send, MUST_WAIT when the calls left wait for backward
     *         credits or send buffers (or the channel closed), FAILED when a post failed (the
     *         connection must close); {@link #pumped()} tells how many went
     */
    public PostOutcome pump(SendQueue sendQueue) {
        assert loop.inLoop() : "pump() off the loop thread";
        pumped = 0;
        while (true) {
            Waiting next;
            SendContext ctx;
            synchronized (this) {
                if (closed || waiting.isEmpty()) {
                    return waiting.isEmpty() ? PostOutcome.POSTED : PostOutcome.MUST_WAIT;
                }
                if (outstanding.size() >= credits) {
                    return PostOutcome.MUST_WAIT;
                }
                ctx = sendQueue.tryAcquire();
                if (ctx == null) {
                    return PostOutcome.MUST_WAIT; // replies hold every buffer: retried when a SEND completes
                }
                next = waiting.pollFirst();
                outstanding.add(next.xid);
            }
            int length = encode(ctx.buffer(), next);
            ctx.prepareSend(length);
            counters.increment(Counter.BACKWARD_CALLS);
            if (!sendQueue.send(ctx)) {
                return PostOutcome.FAILED;
            }
            pumped++;
        }
    }

    /** @return calls the last {@link #pump} posted (completion thread only) */
    public int pumped() {
        return pumped;
    }

    private int encode(ByteBuffer buffer, Waiting call) {
        int headerBytes = headerWriter.wrap(buffer, 0, HEADER_BYTES)
                .fixedHeader(call.xid, RpcRdma.VERSION_1, maxCredits, RpcRdma.RDMA_MSG)
                .finish();
        buffer.put(headerBytes, call.message);
        return headerBytes + call.message.length;
    }

    /**
     * takeReply() - if this decoded message is an RPC reply (a backward-direction reply), take
     * it: match it to its call, take the client's credit grant, hand a copy to the handler.
     * Completion thread only.
     *
     * <p>A reply with any chunk (read list, write list, reply chunk) is refused
     * ({@link #refuseReply}); one whose RPC header
     * {@link RpcHeaderCheck} refuses is counted as {@link Counter#BACKWARD_REPLIES_MALFORMED} and
     * still handed on, for the handler to fail its call with the fault.
     *
     * <p>Ownership: the context stays the caller's (it recycles it when this returns true).
     *
     * @return true when the message was a reply (handled or dropped and counted); false when it
     *         is a forward call for the call path
     */
    @Override
    public boolean takeReply(ReceiveContext ctx) {
        assert loop.inLoop() : "takeReply() off the loop thread";
        ParsedHeader header = ctx.header();
        if (header.proc() != RpcRdma.RDMA_MSG || header.bodyLength() < RpcMessage.TYPED_MESSAGE_BYTES
                || ctx.buffer().getInt(header.bodyOffset() + RpcMessage.MSG_TYPE_OFFSET) != RpcMessage.REPLY) {
            return false;
        }
        int xid = header.xid();
        if (!header.readList().isEmpty()) {
            refuseReply(xid, "it came with a read list");
            return true;
        }
        if (!header.writeList().isEmpty() || header.hasReplyChunk()) {
            // a reply offers the server nothing to write into: Linux takes such a message for no
            // reply (svc_rdma_is_reverse_direction_reply) and drops it
            refuseReply(xid, "it came with a write list or a reply chunk");
            return true;
        }
        boolean matched;
        synchronized (this) {
            matched = outstanding.remove(xid);
            if (matched) {
                int grant = header.credits();
                credits = Math.max(1, Math.min(grant, maxCredits));
            }
        }
        if (!matched) {
            counters.increment(Counter.BACKWARD_REPLIES_UNMATCHED);
            return true;
        }
        counters.increment(Counter.BACKWARD_REPLIES);
        ByteBuffer reply = ByteBuffer.allocate(header.bodyLength());
        reply.put(0, ctx.buffer(), header.bodyOffset(), header.bodyLength());
        if (RpcHeaderCheck.checkReply(reply) != RpcHeaderCheck.Fault.NONE) {
            counters.increment(Counter.BACKWARD_REPLIES_MALFORMED);
        }
        try {
            loop.handler().onBackchannelReply(connection, xid, reply);
        } catch (RuntimeException e) {
            counters.increment(Counter.HANDLER_ERRORS);
        }
        return true;
    }

    /**
     * takeAssembledReply() - if this message, which came with read chunks and whose READs
     * completed, is an RPC reply (an RDMA_NOMSG reply, or an RDMA_MSG whose inline part was too
     * short to tell), refuse it: it never goes the way of calls. Completion thread only.
     *
     * <p>Ownership: the context stays the caller's (it recycles it when this returns true).
     *
     * @return true when the message was a reply (refused or unmatched, counted); false for a call
     */
    @Override
    public boolean takeAssembledReply(ReceiveContext ctx) {
        if (ctx.bodyLength() < RpcMessage.TYPED_MESSAGE_BYTES
                || Xdr.intAt(ctx.body(), RpcMessage.MSG_TYPE_OFFSET) != RpcMessage.REPLY) {
            return false;
        }
        refuseReply(ctx.header().xid(), "it came through read chunks (RDMA_NOMSG or a read list)");
        return true;
    }

    /**
     * refuseReply() - a reply in a form RFC 8167 does not allow (backward replies are inline
     * only): dropped, as Linux drops it; if its call is outstanding, the call's credit comes back
     * now and the handler is told, so its caller fails at once instead of at its timeout (or
     * never, without one).
     */
    private void refuseReply(int xid, String why) {
        boolean known;
        synchronized (this) {
            known = outstanding.remove(xid);
        }
        if (!known) {
            counters.increment(Counter.BACKWARD_REPLIES_UNMATCHED);
            return;
        }
        counters.increment(Counter.BACKWARD_REPLIES_REFUSED);
        try {
            loop.handler().onBackchannelReplyRefused(connection, xid, "the reply from " + connection.remoteAddress()
                    + " to backward call xid 0x" + Integer.toHexString(xid) + " was dropped: " + why
                    + ", and RFC 8167 backward replies are inline only");
        } catch (RuntimeException e) {
            counters.increment(Counter.HANDLER_ERRORS);
        }
    }


    /**
     * close() - the connection is closing: every call outstanding or waiting fails (counted),
     * and the handler is told once. Any thread (it touches only this object's guarded state and
     * the handler); idempotent.
     */
    public void close() {
        int failed;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            failed = outstanding.size() + waiting.size();
            outstanding.clear();
            waiting.clear();
        }
        counters.add(Counter.BACKWARD_CALLS_FAILED, failed);
        try {
            loop.handler().onBackchannelClosed(connection);
        } catch (RuntimeException e) {
            counters.increment(Counter.HANDLER_ERRORS);
        }
    }

    @Override
    public synchronized String toString() {
        return "Backchannel[credits=" + credits + "/" + maxCredits + ", outstanding=" + outstanding.size() + ", waiting="
                + waiting.size() + (closed ? ", closed" : "") + "]";
    }

    /** A backward call waiting to be sent: its xid and a copy of the RPC message. */
    private record Waiting(int xid, byte[] message) {
    }
}
