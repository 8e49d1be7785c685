package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReplyEncoder;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.LatencyHistogram;
import org.rpcrdma4j.transport.internal.common.PostOutcome;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ReplySender - the reply path of one connection (the counterpart of Linux's svc_rdma_sendto):
 * it turns each RPC reply into RDMA WRITEs and one SEND, in the order the replies were sent.
 *
 * <p>For each reply, its {@link ReplyPlan}, decided once from the call's own chunk lists (parsed
 * when the call arrived and kept in its pooled {@link ReplyJob}, so a reply cache's RPC reply is
 * framed for the retransmission that asked for it):
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
 * <p>Staging: the WRITE data (the DDP item; for a reply chunk, the message) is pushed from the
 * loop's registered reply staging. A large reply is mostly encoded there already
 * ({@link ReplyJob#largerReplyBuffer}: a 1 MiB NFS READ's data is read, encoded and pushed from
 * one place); any other reply's WRITE data is copied into an extent taken at its post.
 *
 * <p>Send-queue accounting: a reply posts its WRITEs and SEND in one chain once it holds a send
 * buffer, staging memory for the WRITE data and a send-queue slot for every request; lacking any,
 * it waits at the head of the queue and is retried on the next pass, as completions free
 * resources. Replies never overtake each other, with one exception: while the head waits for
 * staging memory, the replies behind it that need none go ahead (those encoded into staging hold
 * theirs, and the head may be waiting for exactly that). No thread ever blocks.
 *
 * <p>Each posted reply's time since its call's receive completion was handled goes into the
 * connection's reply-latency histogram (a reply refused with ERR_CHUNK does not).
 *
 * <p>Threading: under the connection's send lock (its loop, or the worker that built the reply).
 */
public final class ReplySender {
    private final ArrayDeque<ReplyJob> queue = new ArrayDeque<>();
    private final ReplyEncoder encoder = new ReplyEncoder();
    private final SendQueue sendQueue;
    private final ReplyStaging staging;
    private final ErrorReplies errorReplies;
    private final Counters counters;
    /** Each reply's time from its call's receive completion to the post of its SEND. */
    private final LatencyHistogram latency;
    private final AtomicInteger repliesInTransit;
    private final int credits;
    private SendWorkRequest[] writes = new SendWorkRequest[0];
    private long[] writeChunkBytes = new long[0];

    /** The plan of the job at the head of the queue, made once however often it waits. */
    private final ReplyPlan plan;
    /** The plan of a reply that passes a head waiting for staging ({@link #pumpPastStagingWait}). */
    private final ReplyPlan passingPlan;

    private boolean starvedBuffers;
    /** The last {@link #post} waited for staging memory (not for a send buffer or send-queue slots). */
    private boolean waitedForStaging;
    /** Replies the last pump posted or answered. */
    private int pumped;

    public ReplySender(SendQueue sendQueue, ReplyStaging staging,
                ErrorReplies errorReplies, Counters counters, LatencyHistogram latency,
                AtomicInteger repliesInTransit, int credits, int sendLimit) {
        this.latency = latency;
        this.repliesInTransit = repliesInTransit;
        this.sendQueue = sendQueue;
        this.staging = staging;
        this.errorReplies = errorReplies;
        this.counters = counters;
        this.credits = credits;
        this.plan = new ReplyPlan(sendLimit, staging.capacity(), sendQueue.depth());
        this.passingPlan = new ReplyPlan(sendLimit, staging.capacity(), sendQueue.depth());
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
        plan.clear();
    }

    /**
     * pump() - post the queued replies, in order, as far as resources allow; {@link #pumped()}
     * tells how many went.
     *
     * @return {@link PostOutcome#POSTED} when no reply is left waiting, {@link PostOutcome#MUST_WAIT}
     *         when the head of the queue waits for resources, {@link PostOutcome#FAILED} when a post
     *         failed and the connection must close
     */
    public PostOutcome pump() {
        pumped = 0;
        while (!queue.isEmpty()) {
            ReplyJob job = queue.peekFirst();
            if (!plan.isFor(job)) {
                planFromStaging(job, plan);
            }
            boolean refused = plan.mode() == ReplyPlan.Mode.TOO_LARGE;
            PostOutcome outcome = refused ? refuse(job) : post(job, plan);
            if (outcome == PostOutcome.MUST_WAIT) {
                return waitedForStaging && queue.size() > 1 ? pumpPastStagingWait() : outcome;
            }
            queue.pollFirst();
            plan.clear();
            job.recycle();
            if (refused) {
                // Answered by an error reply, not a SEND of its own: done with it now.
                repliesInTransit.decrementAndGet();
            }
            if (outcome == PostOutcome.FAILED) {
                return outcome;
            }
            pumped++;
        }
        return PostOutcome.POSTED;
    }

    /**
     * pumpPastStagingWait() - the head of the queue waits for staging memory: the replies behind
     * it that need none (inline replies without a DDP item, and replies encoded into staging
     * already) are posted now, in order. Replies keep their order otherwise. Without this, a
     * reply waiting for staging could wait for ever on replies queued behind it that hold staging
     * they were encoded into (its connection's share, or the slab, full of them).
     *
     * @return MUST_WAIT (the head still waits), or FAILED when a post failed
     */
    private PostOutcome pumpPastStagingWait() {
        Iterator<ReplyJob> behind = queue.iterator();
        behind.next(); // the head, which waits
        while (behind.hasNext()) {
            ReplyJob job = behind.next();
            planFromStaging(job, passingPlan);
            boolean needsNoStaging = passingPlan.mode() != ReplyPlan.Mode.TOO_LARGE
                    && (passingPlan.stagingBytes() == 0 || job.stagedReplyOffset() >= 0);
            if (!needsNoStaging) {
                passingPlan.clear();
                continue;
            }
            PostOutcome outcome = post(job, passingPlan);
            passingPlan.clear();
            if (outcome == PostOutcome.MUST_WAIT) {
                break; // a send buffer or the send queue: the rest wait too
            }
            behind.remove();
            job.recycle();
            if (outcome == PostOutcome.FAILED) {
                return outcome;
            }
            pumped++;
        }
        return PostOutcome.MUST_WAIT;
    }

    /**
     * planFromStaging() - plan {@code job} into {@code into}; a reply encoded into staging that
     * cannot be posted from there as it lies (a DDP item and a reply chunk) is moved out of
     * staging first ({@link ReplyJob#moveOutOfStaging}), as is a reply that holds an extent it
     * was not sent in. (One refused with ERR_CHUNK gives its extent back when recycled.)
     */
    private static void planFromStaging(ReplyJob job, ReplyPlan into) {
        into.plan(job);
        if (job.holdsStaging() && into.mode() != ReplyPlan.Mode.TOO_LARGE
                && !(job.stagedReplyOffset() >= 0 && postsFromStaging(into))) {
            job.moveOutOfStaging();
            into.plan(job);
        }
    }

    /** @return whether a reply lying in staging is posted from there: inline, or all of it through the reply chunk */
    private static boolean postsFromStaging(ReplyPlan plan) {
        return plan.mode() == ReplyPlan.Mode.INLINE || plan.mode() == ReplyPlan.Mode.REPLY_CHUNK && plan.itemLength() == 0;
    }

    /** @return replies the last {@link #pump()} posted or answered with ERR_CHUNK */
    public int pumped() {
        return pumped;
    }

    /** @return POSTED when answered with ERR_CHUNK, FAILED when the post failed (it never waits) */
    private PostOutcome refuse(ReplyJob job) {
        counters.increment(Counter.REPLIES_TOO_LARGE);
        return errorReplies.sendErrChunk(job.xid()) ? PostOutcome.POSTED : PostOutcome.FAILED;
    }

    /** @return whether the reply was posted, must wait for resources, or its post failed */
    private PostOutcome post(ReplyJob job, ReplyPlan plan) {
        waitedForStaging = false;
        SendContext ctx = sendQueue.tryAcquire();
        if (ctx == null) {
            if (!starvedBuffers) {
                starvedBuffers = true;
                counters.increment(Counter.SEND_BUFFER_STARVATION);
            }
            return PostOutcome.MUST_WAIT;
        }
        starvedBuffers = false;
        MemoryRegion region = null;
        int extent = 0;
        // A reply encoded into staging (planFromStaging kept it there only if it posts from there).
        int staged = job.stagedReplyOffset();
        boolean inSendBuffer = false;
        if (staged >= 0) {
            region = staging.registeredRegion(); // registered while the reply holds its extent
            extent = staged;
        } else if (plan.stagingBytes() > 0 && plan.stagingBytes() <= SendQueue.ITEM_ROOM) {
            // A page or less (a 4 KiB READ's data): from the send buffer's own room, held with it
            region = ctx.region();
            extent = ctx.itemOffset();
            inSendBuffer = true;
        } else if (plan.stagingBytes() > 0) {
            try {
                region = staging.region();
            } catch (VerbsException e) {
                sendQueue.abandon(ctx);
                repliesInTransit.decrementAndGet();
                counters.increment(Counter.POST_FAILURES);
                sendQueue.failed("registering the reply staging memory failed: " + e.getMessage());
                return PostOutcome.FAILED;
            }
            extent = staging.allocate(plan.stagingBytes());
            if (extent < 0) {
                // Waits for this connection's share or for the slab (the staging counts which).
                sendQueue.abandon(ctx);
                waitedForStaging = true;
                return PostOutcome.MUST_WAIT;
            }
            ctx.holdStaging(extent, plan.stagingBytes());
        }
        if (!sendQueue.reserve(plan.requests())) {
            sendQueue.abandon(ctx);
            return PostOutcome.MUST_WAIT;
        }
        if (staged >= 0) {
            // From here the SEND's context owns the extent: its completion (or flush) frees it.
            ctx.holdStaging(staged, job.stagedLength());
            job.stagingPosted();
        }
        SendWorkRequest first = build(job, plan, ctx, region, extent, staged >= 0);
        ctx.carriesReply(true);
        // Counted before the post: once posted, the reply can reach the client before this
        // thread runs again, and whoever reads the statistics after the reply must see it.
        countPosted(plan, staged >= 0, inSendBuffer, 1);
        int bucket = latency.record(System.nanoTime() - job.receivedAt());
        try {
            sendQueue.postChain(first);
        } catch (VerbsException e) {
            countPosted(plan, staged >= 0, inSendBuffer, -1);
            latency.unrecord(bucket);
            // Requests before the failed one were posted and complete (flushed) on their own;
            // the WRITEs among them read the staging extent until then, so the context and its
            // extent are released by their completions (the SEND, last in the chain, failed).
            int posted = Math.max(0, e.failedIndex());
            sendQueue.unreserve(plan.requests() - posted);
            if (posted < plan.requests()) {
                sendQueue.abandonAfterWrites(ctx, posted);
            }
            counters.increment(Counter.POST_FAILURES);
            sendQueue.failed("posting a reply's " + (plan.requests() > 1 ? plan.requests() - 1 + " RDMA WRITE(s) and its " : "")
                    + (plan.invalidate() ? "SEND_WITH_INV" : "SEND") + " failed at request " + e.failedIndex() + ": " + e.getMessage());
            return PostOutcome.FAILED;
        }
        return PostOutcome.POSTED;
    }

    /**
     * build() - the reply's RDMA WRITEs and SEND, chained.
     *
     * @param extent where the reply's data lies in the staging slab: the extent taken for it
     *        (its DDP item first, then for a reply chunk the message), or with {@code inStaging}
     *        the extent the whole reply was encoded into
     * @param inStaging the reply was encoded into staging: its WRITEs read it where it lies
     */
    private SendWorkRequest build(ReplyJob job, ReplyPlan plan, SendContext ctx, MemoryRegion region, int extent,
                                  boolean inStaging) {
        ByteBuffer reply = job.reply();
        int writeCount = plan.requests() - 1;
        ensureWrites(writeCount);
        int w = 0;
        ParsedHeader call = plan.call();
        WriteList writeList = call.writeList();
        long[] written = writeChunkBytes(writeList.chunkCount());
        if (plan.itemLength() > 0) {
            int item = extent;
            if (inStaging) {
                item += reply.position() + plan.itemOffset();
            } else {
                region.buffer().put(extent, reply, reply.position() + plan.itemOffset(), plan.itemLength());
            }
            w = addWrites(ctx, w, writeList.segments(), writeList.firstSegment(0), writeList.segmentCount(0),
                    region, item, plan.itemLength());
            written[0] = plan.itemLength();
        }
        ByteBuffer send = ctx.buffer();
        int sendLength;
        if (plan.mode() == ReplyPlan.Mode.INLINE) {
            int headerLength = encoder.encodeMsgReply(send, 0, send.capacity(), call, credits, written);
            copyReduced(plan, reply, send, headerLength);
            sendLength = headerLength + plan.reducedLength();
        } else {
            int at;
            if (inStaging) {
                at = extent + reply.position(); // all of the message: no item left it (planFromStaging)
            } else {
                at = extent + plan.bodyStart();
                copyReduced(plan, reply, region.buffer(), at);
            }
            SegmentList chunk = call.replyChunk();
            w = addWrites(ctx, w, chunk, 0, chunk.count(), region, at, plan.reducedLength());
            sendLength = encoder.encodeNomsgReply(send, 0, send.capacity(), call, credits, written, plan.reducedLength());
        }
        SendWorkRequest sendRequest = ctx.prepareSend(sendLength, plan.invalidate() ? SendOpcode.SEND_WITH_INV : SendOpcode.SEND);
        if (plan.invalidate()) {
            sendRequest.invalidateKey(plan.invalidateKey());
        }
        for (int i = 0; i < w; i++) {
            writes[i].next(i + 1 < w ? writes[i + 1] : sendRequest);
        }
        assert w == writeCount : "built " + w + " RDMA WRITEs for a plan of " + writeCount;
        // the SEND's completion gives back exactly the slots reserve() took for this chain
        ctx.retires(writeCount);
        return w > 0 ? writes[0] : sendRequest;
    }

    /** Copies the message without the DDP item's bytes and round-up into {@code dst} at {@code at}. */
    private static void copyReduced(ReplyPlan plan, ByteBuffer reply, ByteBuffer dst, int at) {
        int p = reply.position();
        if (plan.itemLength() == 0) {
            dst.put(at, reply, p, plan.reducedLength());
            return;
        }
        int itemOffset = plan.itemOffset();
        dst.put(at, reply, p, itemOffset);
        int tail = plan.reducedLength() - itemOffset;
        dst.put(at + itemOffset, reply, p + itemOffset + plan.itemPadded(), tail);
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
            // unsignaled: the reply's SEND, chained after it, retires it (SendQueue)
            writes[w].reset(SendOpcode.RDMA_WRITE, WorkRequestIds.of(WorkRequestIds.WRITE, ctx.index()), 0)
                    .next(null);
            writes[w].addSge(region, at, n).remote(segments.offset(i), segments.handle(i));
            counters.addOwned(Counter.WRITE_BYTES, n);
            w++;
            at += n;
            left -= n;
        }
        return w;
    }

    /**
     * countPosted() - count the reply about to be posted (sign 1), or take it back (sign -1).
     *
     * @param inStaging the reply was encoded into staging (its WRITEs, if any, read it there)
     * @param inSendBuffer its WRITEs read its send buffer's item room
     */
    private void countPosted(ReplyPlan plan, boolean inStaging, boolean inSendBuffer, int sign) {
        counters.addOwned(Counter.SENDS, sign);
        if (plan.requests() > 1) {
            counters.addOwned(Counter.WRITES, sign * (plan.requests() - 1L));
            if (inStaging) {
                counters.addOwned(Counter.REPLIES_ENCODED_IN_STAGING, sign);
            }
            if (inSendBuffer) {
                counters.addOwned(Counter.REPLIES_WRITTEN_FROM_SEND_BUFFER, sign);
            }
        }
        counters.addOwned(plan.mode() == ReplyPlan.Mode.INLINE ? Counter.REPLIES_INLINE : Counter.REPLIES_REPLY_CHUNK, sign);
        if (plan.itemLength() > 0) {
            counters.addOwned(Counter.REPLIES_WRITE_CHUNK, sign);
        }
        if (plan.invalidate()) {
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
