package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReplyEncoder;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ReplySender - the reply path of one connection (the counterpart of Linux's svc_rdma_sendto):
 * it turns each RPC reply into RDMA WRITEs and one SEND, in the order the replies were sent.
 *
 * <p>For each reply, decided once from the call's own chunk lists (parsed when the call arrived
 * and kept in its pooled {@link ReplyJob}, so a reply cache's RPC reply is framed for the
 * retransmission that asked for it):
 * <ol>
 * <li>a DDP-eligible item that fits the client's first write chunk is pushed there with RDMA
 *     WRITE and leaves the message, length word kept and XDR round-up dropped (RFC 8166 §3.4.5);
 *     the write list is echoed with the bytes written (unused chunks as zero lengths);</li>
 * <li>the rest goes inline in an RDMA_MSG when header and message fit the client's receive size
 *     and our send buffer;</li>
 * <li>else through the client's reply chunk with RDMA WRITE, announced by an RDMA_NOMSG;</li>
 * <li>else it fits nowhere: RDMA_ERROR / ERR_CHUNK tells the client at once (no timeout).</li>
 * </ol>
 * Every header grants the connection's credits. When the client allows remote invalidation
 * (RFC 8797) and all of the call's chunks name one and the same key, the SEND is a Send With
 * Invalidate of that key (what Linux does), sparing the client a LOCAL_INV.
 *
 * <p>Send-queue accounting: a reply posts its WRITEs and SEND in one chain once it holds a send
 * buffer, staging memory for the WRITE data and a send-queue slot for every request; lacking any,
 * it waits at the head of the queue (FIFO: replies never overtake each other) and is retried on
 * the next pass, as completions free resources. No thread ever blocks.
 *
 * <p>Threading: under the connection's send lock (its loop, or the worker that built the reply).
 */
public final class ReplySender {
    private static final int INLINE = 1;
    private static final int REPLY_CHUNK = 2;
    private static final int TOO_LARGE = 3;

    private final ArrayDeque<ReplyJob> queue = new ArrayDeque<>();
    /** The header of the reply being planned: its job's copy of the call's chunk lists. */
    private ParsedHeader call;
    private final ReplyEncoder encoder = new ReplyEncoder();
    private final SendQueue sendQueue;
    private final ReplyStaging staging;
    private final ErrorReplies errorReplies;
    private final Counters counters;
    private final AtomicInteger repliesInTransit;
    private final int credits;
    private final int sendLimit;
    private SendWorkRequest[] writes = new SendWorkRequest[0];
    private long[] writeChunkBytes = new long[0];

    /* The plan of the job at the head of the queue, made once however often it waits. */
    private ReplyJob planned;
    private int mode;
    private int itemOffset;
    private int itemLength;
    private int itemPadded;
    private int reducedLength;
    private int stagingBytes;
    private int requests;
    private int invalidateKey;
    private boolean invalidate;

    private boolean starvedBuffers;

    public ReplySender(SendQueue sendQueue, ReplyStaging staging,
                ErrorReplies errorReplies, Counters counters, AtomicInteger repliesInTransit,
                int credits, int sendLimit) {
        this.repliesInTransit = repliesInTransit;
        this.sendQueue = sendQueue;
        this.staging = staging;
        this.errorReplies = errorReplies;
        this.counters = counters;
        this.credits = credits;
        this.sendLimit = sendLimit;
    }

    public void enqueue(ReplyJob job) {
        queue.addLast(job);
    }

    /** @return replies waiting for resources */
    int waiting() {
        return queue.size();
    }

    /** dropAll() - the connection is closing: every queued reply is dropped and counted. */
    public void dropAll() {
        while (!queue.isEmpty()) {
            queue.pollFirst().recycle();
            repliesInTransit.decrementAndGet();
            counters.increment(Counter.REPLIES_DROPPED);
        }
        planned = null;
        call = null;
    }

    /**
     * pump() - post the queued replies, in order, as far as resources allow.
     *
     * @return the number of replies posted (or answered with ERR_CHUNK), or -1 when a post
     *         failed and the connection must close
     */
    public int pump() {
        int done = 0;
        while (!queue.isEmpty()) {
            ReplyJob job = queue.peekFirst();
            if (planned != job) {
                plan(job);
            }
            int result = mode == TOO_LARGE ? refuse(job) : post(job);
            if (result == 0) {
                return done;
            }
            queue.pollFirst();
            planned = null;
            call = null;
            job.recycle();
            if (mode == TOO_LARGE) {
                // Answered by an error reply, not a SEND of its own: done with it now.
                repliesInTransit.decrementAndGet();
            }
            if (result < 0) {
                return -1;
            }
            done++;
        }
        return done;
    }

    private void plan(ReplyJob job) {
        planned = job;
        call = job.call();
        ByteBuffer reply = job.reply();
        int length = reply.remaining();
        itemOffset = -1;
        itemLength = 0;
        itemPadded = 0;
        WriteList writeList = call.writeList();
        if (job.ddpItemOffset() >= 0 && writeList.chunkCount() > 0) {
            int item = reply.getInt(reply.position() + job.ddpItemOffset());
            if (item > 0 && item <= writeList.chunkLength(0)) {
                itemOffset = job.ddpItemOffset() + Integer.BYTES;
                itemLength = item;
                itemPadded = (int) Xdr.roundUp(item);
            }
        }
        reducedLength = length - itemPadded;
        int writeRequests = itemLength > 0 ? segmentsFor(writeList.segments(), writeList.firstSegment(0),
                writeList.segmentCount(0), itemLength) : 0;
        if (ReplyEncoder.replyHeaderLength(call, false) + reducedLength <= sendLimit) {
            mode = INLINE;
            stagingBytes = itemLength;
            requests = writeRequests + 1;
        } else if (call.hasReplyChunk() && call.replyChunk().totalLength() >= reducedLength
                && ReplyEncoder.replyHeaderLength(call, true) <= sendLimit) {
            mode = REPLY_CHUNK;
            stagingBytes = bodyStart() + reducedLength;
            SegmentList chunk = call.replyChunk();
            requests = writeRequests + segmentsFor(chunk, 0, chunk.count(), reducedLength) + 1;
        } else {
            mode = TOO_LARGE;
        }
        if (mode != TOO_LARGE && (stagingBytes > staging.capacity() || requests > sendQueue.depth())) {
            mode = TOO_LARGE;
        }
        chooseInvalidation(job);
    }

    /** Where the message goes in a reply's staging extent: after the item, cache-line aligned. */
    private int bodyStart() {
        return (itemLength + ReplyStaging.ALIGNMENT - 1) & -ReplyStaging.ALIGNMENT;
    }

    /** Send With Invalidate when the connection allows it and every segment of the call named the same key. */
    private void chooseInvalidation(ReplyJob job) {
        invalidate = job.invalidates();
        invalidateKey = invalidate ? job.invalidateKey() : 0;
    }

    /** @return 1 when answered, 0 never, -1 when the post failed */
    private int refuse(ReplyJob job) {
        counters.increment(Counter.REPLIES_TOO_LARGE);
        return errorReplies.sendErrChunk(job.xid()) ? 1 : -1;
    }

    /** @return 1 when posted, 0 when it must wait, -1 when the post failed */
    private int post(ReplyJob job) {
        SendContext ctx = sendQueue.tryAcquire();
        if (ctx == null) {
            if (!starvedBuffers) {
                starvedBuffers = true;
                counters.increment(Counter.SEND_BUFFER_STARVATION);
            }
            return 0;
        }
        starvedBuffers = false;
        MemoryRegion region = null;
        int extent = 0;
        if (stagingBytes > 0) {
            try {
                region = staging.region();
            } catch (VerbsException e) {
                sendQueue.abandon(ctx);
                repliesInTransit.decrementAndGet();
                counters.increment(Counter.POST_FAILURES);
                sendQueue.failed("registering the reply staging memory failed: " + e.getMessage());
                return -1;
            }
            extent = staging.allocate(stagingBytes);
            if (extent < 0) {
                // Waits for this connection's share or for the slab (the staging counts which).
                sendQueue.abandon(ctx);
                return 0;
            }
            ctx.holdStaging(extent, stagingBytes);
        }
        if (!sendQueue.reserve(requests)) {
            sendQueue.abandon(ctx);
            return 0;
        }
        SendWorkRequest first = build(job, ctx, region, extent);
        ctx.carriesReply(true);
        // Counted before the post: once posted, the reply can reach the client before this
        // thread runs again, and whoever reads the statistics after the reply must see it.
        countPosted(1);
        try {
            sendQueue.postChain(first);
        } catch (VerbsException e) {
            countPosted(-1);
            // Requests before the failed one were posted and complete (flushed) on their own;
            // the WRITEs among them read the staging extent until then, so the context and its
            // extent are released by their completions (the SEND, last in the chain, failed).
            int posted = Math.max(0, e.failedIndex());
            sendQueue.unreserve(requests - posted);
            if (posted < requests) {
                sendQueue.abandonAfterWrites(ctx, posted);
            }
            counters.increment(Counter.POST_FAILURES);
            sendQueue.failed("posting a reply's " + (requests > 1 ? requests - 1 + " RDMA WRITE(s) and its " : "")
                    + (invalidate ? "SEND_WITH_INV" : "SEND") + " failed at request " + e.failedIndex() + ": " + e.getMessage());
            return -1;
        }
        return 1;
    }

    private SendWorkRequest build(ReplyJob job, SendContext ctx, MemoryRegion region, int extent) {
        ByteBuffer reply = job.reply();
        int writeCount = requests - 1;
        ensureWrites(writeCount);
        int w = 0;
        WriteList writeList = call.writeList();
        long[] written = writeChunkBytes(writeList.chunkCount());
        if (itemLength > 0) {
            region.buffer().put(extent, reply, reply.position() + itemOffset, itemLength);
            w = addWrites(ctx, w, writeList.segments(), writeList.firstSegment(0), writeList.segmentCount(0),
                    region, extent, itemLength);
            written[0] = itemLength;
        }
        ByteBuffer send = ctx.buffer();
        int sendLength;
        if (mode == INLINE) {
            int headerLength = encoder.encodeMsgReply(send, 0, send.capacity(), call, credits, written);
            copyReduced(reply, send, headerLength);
            sendLength = headerLength + reducedLength;
        } else {
            int at = extent + bodyStart();
            copyReduced(reply, region.buffer(), at);
            SegmentList chunk = call.replyChunk();
            w = addWrites(ctx, w, chunk, 0, chunk.count(), region, at, reducedLength);
            sendLength = encoder.encodeNomsgReply(send, 0, send.capacity(), call, credits, written, reducedLength);
        }
        SendWorkRequest sendRequest = ctx.prepareSend(sendLength, invalidate ? SendOpcode.SEND_WITH_INV : SendOpcode.SEND);
        if (invalidate) {
            sendRequest.invalidateKey(invalidateKey);
        }
        for (int i = 0; i < w; i++) {
            writes[i].next(i + 1 < w ? writes[i + 1] : sendRequest);
        }
        return w > 0 ? writes[0] : sendRequest;
    }

    /** Copies the message without the DDP item's bytes and round-up into {@code dst} at {@code at}. */
    private void copyReduced(ByteBuffer reply, ByteBuffer dst, int at) {
        int p = reply.position();
        if (itemLength == 0) {
            dst.put(at, reply, p, reducedLength);
            return;
        }
        dst.put(at, reply, p, itemOffset);
        int tail = reducedLength - itemOffset;
        dst.put(at + itemOffset, reply, p + itemOffset + itemPadded, tail);
    }

    /** Adds RDMA WRITEs of {@code length} bytes at {@code source} into the segments, in order. */
    private int addWrites(SendContext ctx, int w, SegmentList segments, int first, int count, MemoryRegion region,
                          int source, int length) {
        int left = length;
        int at = source;
        for (int i = first; i < first + count && left > 0; i++) {
            int n = (int) Math.min(left, segments.length(i));
            if (n == 0) {
                continue;
            }
            writes[w].reset(SendOpcode.RDMA_WRITE, WorkRequestIds.of(WorkRequestIds.WRITE, ctx.index()), SendWorkRequest.SIGNALED)
                    .next(null);
            writes[w].addSge(region, at, n).remote(segments.offset(i), segments.handle(i));
            counters.addOwned(Counter.WRITE_BYTES, n);
            w++;
            at += n;
            left -= n;
        }
        return w;
    }

    /** @return the number of segments that {@code length} bytes fill, first to last */
    private static int segmentsFor(SegmentList segments, int first, int count, int length) {
        long left = length;
        int n = 0;
        for (int i = first; i < first + count && left > 0; i++) {
            long take = Math.min(left, segments.length(i));
            if (take > 0) {
                n++;
                left -= take;
            }
        }
        return n;
    }

    /** countPosted() - count the reply about to be posted (sign 1), or take it back (sign -1). */
    private void countPosted(int sign) {
        counters.addOwned(Counter.SENDS, sign);
        if (requests > 1) {
            counters.addOwned(Counter.WRITES, sign * (requests - 1L));
        }
        counters.addOwned(mode == INLINE ? Counter.REPLIES_INLINE : Counter.REPLIES_REPLY_CHUNK, sign);
        if (itemLength > 0) {
            counters.addOwned(Counter.REPLIES_WRITE_CHUNK, sign);
        }
        if (invalidate) {
            counters.addOwned(Counter.SEND_WITH_INVALIDATE, sign);
        }
    }

    private void ensureWrites(int n) {
        if (writes.length < n) {
            int old = writes.length;
            writes = Arrays.copyOf(writes, Math.max(n, 2 * old));
            for (int i = old; i < writes.length; i++) {
                writes[i] = new SendWorkRequest(1);
            }
        }
    }

    private long[] writeChunkBytes(int chunks) {
        if (writeChunkBytes.length < chunks) {
            writeChunkBytes = new long[chunks];
        }
        Arrays.fill(writeChunkBytes, 0, chunks, 0L);
        return chunks == 0 ? null : writeChunkBytes;
    }
}
