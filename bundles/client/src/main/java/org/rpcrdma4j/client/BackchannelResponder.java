package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * BackchannelResponder - the client's side of the backward direction (RFC 8167): it takes the
 * server's backward calls out of the receives, runs the registered {@link BackwardCallHandler}
 * on a callback thread, and sends each reply inline as an RDMA_MSG that grants the client's
 * backward credits.
 *
 * <p>Resources: the client posts {@code backchannelCredits} receives beyond its forward credits
 * (any receive can catch either a forward reply or a backward call), and keeps that many send
 * slots of its send slab for backward replies. A server that sends more backward calls than the
 * grant finds no free slot: the call is dropped and counted; the server's own timeout answers it.
 *
 * <p>Threading: {@link #onCall} on the polling thread; {@link #sendCompleted} on the polling
 * thread; the handler and the posting of replies on the callback threads (posting under the
 * session's lock). Ownership: the send slab is the client's {@link VerbsResources}'; the callback
 * threads are this object's, ended by {@link #close()}.
 */
final class BackchannelResponder {
    /** Work request ids of backward-reply SENDs carry this tag above the slot index. */
    static final long SEND_TAG = 4L << 32;
    private static final int HEADER_BYTES = RpcRdma.MIN_MSG_HEADER_WORDS * Integer.BYTES;

    private final BackwardCallHandler handler;
    private final int credits;
    private final ClientSession session;
    private final MemoryRegion slab;
    private final int firstSlot;
    private final int slotSize;
    private final ClientCounters counters;
    private final ExecutorService callbacks;
    private final SendWorkRequest[] sends;
    /** Each slot's header writer: a slot is one callback thread's from its taking to its freeing. */
    private final HeaderWriter[] headers;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();

    BackchannelResponder(BackwardCallHandler handler, int credits, ClientSession session, MemoryRegion slab, int firstSlot,
                         int slotSize, ClientCounters counters) {
        this.handler = handler;
        this.credits = credits;
        this.session = session;
        this.slab = slab;
        this.firstSlot = firstSlot;
        this.slotSize = slotSize;
        this.counters = counters;
        this.sends = new SendWorkRequest[credits];
        this.headers = new HeaderWriter[credits];
        for (int i = 0; i < credits; i++) {
            sends[i] = new SendWorkRequest(1);
            headers[i] = new HeaderWriter();
            free.add(i);
        }
        ThreadPoolExecutor pool = new ThreadPoolExecutor(credits, credits, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "rpcrdma4j-client-callback");
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        this.callbacks = pool;
    }

    /**
     * isCall() - whether a decoded receive is a backward call: an RDMA_MSG whose inline RPC
     * message is of type CALL (the client tells calls from replies by the RPC message direction).
     */
    static boolean isCall(ParsedHeader header, ByteBuffer receive) {
        return header.proc() == RpcRdma.RDMA_MSG && header.bodyLength() >= RpcMessage.TYPED_MESSAGE_BYTES
                && receive.getInt(header.bodyOffset() + RpcMessage.MSG_TYPE_OFFSET) == RpcMessage.CALL;
    }

    /**
     * onCall() - take a backward call: copy it out of the receive (which is reposted right after)
     * and run the handler on a callback thread. Polling thread only.
     */
    void onCall(ParsedHeader header, ByteBuffer receive) {
        Integer slot;
        synchronized (free) {
            slot = free.pollFirst();
        }
        if (slot == null || !header.readList().isEmpty() || header.writeList().chunkCount() > 0 || header.hasReplyChunk()) {
            // Beyond our grant, or with chunks (RFC 8167: backward messages travel inline only).
            counters.backwardCallsDropped.incrementAndGet();
            if (slot != null) {
                freeSlot(slot);
            }
            return;
        }
        counters.backwardCalls.incrementAndGet();
        ByteBuffer call = ByteBuffer.allocate(header.bodyLength());
        call.put(0, receive, header.bodyOffset(), header.bodyLength());
        int xid = header.xid();
        try {
            callbacks.execute(() -> answer(slot, xid, call));
        } catch (RejectedExecutionException e) {
            counters.backwardCallsDropped.incrementAndGet();
            freeSlot(slot);
        }
    }

    private void answer(int slot, int xid, ByteBuffer call) {
        ByteBuffer reply;
        try {
            reply = handler.answer(call.duplicate());
        } catch (Exception | Error e) {
            reply = systemError(call);
        }
        if (reply == null) {
            freeSlot(slot);
            return;
        }
        if (HEADER_BYTES + reply.remaining() > slotSize) {
            reply = systemError(call);
        }
        int offset = (firstSlot + slot) * slotSize;
        ByteBuffer buffer = slab.buffer();
        // RDMA_MSG granting our backward credits, no chunks (RFC 8167 section 4: inline only)
        int headerBytes = headers[slot].wrap(buffer, offset, HEADER_BYTES)
                .fixedHeader(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_MSG).finish();
        buffer.put(offset + headerBytes, reply, reply.position(), reply.remaining());
        SendWorkRequest send = sends[slot].reset(SendOpcode.SEND, SEND_TAG | slot, SendWorkRequest.SIGNALED)
                .addSge(slab, offset, headerBytes + reply.remaining()).next(null);
        // Counted before the post (and taken back if it fails): the server may have the reply,
        // and its caller the result, before this thread returns from posting.
        counters.backwardReplies.incrementAndGet();
        try {
            if (session.postRaw(send)) {
                return;
            }
        } catch (VerbsException e) {
            // The connection fails on its own (the post's completions flush); nothing to answer now.
        }
        counters.backwardReplies.decrementAndGet();
        freeSlot(slot);
    }

    /** @return an accepted RPC reply with status SYSTEM_ERR to {@code call} */
    private static ByteBuffer systemError(ByteBuffer call) {
        ByteBuffer reply = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        return RpcMessage.putAcceptedReplyHeader(reply, call.getInt(RpcMessage.XID_OFFSET), RpcMessage.SYSTEM_ERR).flip();
    }

    /** sendCompleted() - a backward reply's SEND completed: its slot is free. */
    void sendCompleted(long id) {
        freeSlot((int) id);
    }

    static boolean isSend(long id) {
        return (id & ~0xffffffffL) == SEND_TAG;
    }

    private void freeSlot(int slot) {
        synchronized (free) {
            free.addLast(slot);
        }
    }

    /** close() - the connection is gone: callbacks not yet started are dropped; running ones find the session closed. */
    void close() {
        callbacks.shutdownNow();
    }
}
