package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * SendQueue - send-queue accounting and the send buffers of one connection.
 *
 * <p>A slot is taken at post and given back when the completion that retires its request is
 * polled: a SEND's and a READ's own; a reply's RDMA WRITEs are posted unsignaled, chained before
 * its SEND, and retired by the SEND's completion, which gives back their slots too (one
 * completion per reply, as one post). Errors and flushes complete unsignaled WRITEs as well;
 * those completions only report. Nothing is ever posted beyond {@link #depth()}. READ chains
 * reserve their slots here too. A SEND that finds the queue full waits in FIFO order and
 * is posted by {@link #pump()} as completions free slots: no thread blocks.
 *
 * <p>Ownership: the connection owns the queue; {@link #deregister()} after the queue pair is
 * destroyed. Used under the connection's send lock (its loop, or a worker posting its own reply).
 */
public final class SendQueue {
    /**
     * Registered bytes after each send buffer, for the DDP item of the reply its SEND carries when
     * the item is a page or less (an NFS READ of 4 KiB, the lab's random reads): the item's RDMA
     * WRITE reads it there, so such a reply takes nothing of the loop's shared
     * {@link StagingSlab} (whose allocation and free, under its lock, were 6 % of our server's
     * samples for those reads in lab run 2026-12-07-1718). The room lives as long as its context:
     * from the post until the SEND's completion retires the WRITE before it.
     */
    public static final int ITEM_ROOM = ReplyJob.PAGE_ITEM_ROOM;

    private final int depth;
    private final MemoryRegion region;
    private final SendContext[] contexts;
    private final int[] freeStack;
    private final ArrayDeque<SendContext> waiting;
    private final Counters counters;
    private int freeCount;
    private int outstanding;
    /** Why the send side failed first (a post or a completion), for the connection's log line. */
    private String failure;
    private final ReplyStaging staging;
    private final AtomicInteger repliesInTransit;
    private QueuePair queuePair;

    /**
     * Registers the send buffers, each followed by {@link #ITEM_ROOM} bytes for its reply's DDP item.
     *
     * @throws VerbsException when registration fails (nothing stays registered)
     */
    public SendQueue(ProtectionDomain pd, int depth, int buffers, int bufferLength, int maxSge, ReplyStaging staging,
              Counters counters, AtomicInteger repliesInTransit) throws VerbsException {
        this.depth = depth;
        this.staging = staging;
        this.repliesInTransit = repliesInTransit;
        this.counters = counters;
        int stride = bufferLength + ITEM_ROOM;
        this.region = pd.registerMemory(ByteBuffer.allocateDirect(Math.multiplyExact(buffers, stride)), 0);
        this.contexts = new SendContext[buffers];
        this.freeStack = new int[buffers];
        this.waiting = new ArrayDeque<>(buffers);
        for (int i = 0; i < buffers; i++) {
            contexts[i] = new SendContext(i, region, i * stride, bufferLength, maxSge);
            freeStack[i] = buffers - 1 - i;
        }
        freeCount = buffers;
    }

    public void attach(QueuePair qp) {
        this.queuePair = qp;
    }

    int depth() {
        return depth;
    }

    /** @return requests posted whose completions have not been polled yet */
    public int outstanding() {
        return outstanding;
    }

    /** @return SENDs waiting for a send-queue slot */
    int waiting() {
        return waiting.size();
    }

    /**
     * reserve() - take send-queue slots for {@code n} requests about to be posted.
     *
     * @return false when fewer than {@code n} are free (nothing taken)
     */
    public boolean reserve(int n) {
        if (depth - outstanding < n) {
            return false;
        }
        outstanding += n;
        return true;
    }

    /** unreserve() - give back slots of requests that were not posted after all. */
    public void unreserve(int n) {
        outstanding -= n;
    }

    /** @return a free send context, or null (counted) when every buffer is in use */
    SendContext acquire() {
        SendContext context = tryAcquire();
        if (context == null) {
            counters.increment(Counter.SEND_BUFFER_STARVATION);
        }
        return context;
    }

    /** @return a free send context, or null (not counted: the caller counts episodes) */
    public SendContext tryAcquire() {
        return freeCount == 0 ? null : contexts[freeStack[--freeCount]];
    }

    /** @return the bytes of each send buffer: the most a SEND may carry */
    public int bufferLength() {
        return contexts[0].buffer().capacity();
    }

    /** @return the bytes this queue registered: every send buffer with its item room */
    public long registeredBytes() {
        return region.buffer().capacity();
    }

    /**
     * abandonAfterWrites() - a reply's chain failed to post after {@code postedWrites} of its RDMA
     * WRITEs: they read the context's staging extent until they complete (or flush), so the
     * context is released by the last of their completions, never before (else the extent could
     * be handed to another reply while the NIC still reads it for this peer).
     */
    void abandonAfterWrites(SendContext context, int postedWrites) {
        if (postedWrites == 0) {
            abandon(context);
        } else {
            context.writesBeforeRelease = postedWrites;
        }
    }

    /** abandon() - give back a context that will not be posted, with its staging extent. */
    void abandon(SendContext context) {
        context.takeSlots();
        if (context.carriesReply()) {
            context.carriesReply(false);
            repliesInTransit.decrementAndGet();
        }
        if (context.stagingLength() > 0) {
            staging.free(context.stagingOffset(), context.stagingLength());
            context.holdStaging(0, 0);
        }
        freeStack[freeCount++] = context.index();
    }

    /**
     * send() - post a prepared SEND now, or queue it until a slot frees.
     *
     * @return false when the provider refused the post (the context is back in the pool)
     */
    public boolean send(SendContext context) {
        if (!waiting.isEmpty() || !reserve(1)) {
            counters.increment(Counter.SEND_QUEUE_FULL);
            waiting.addLast(context);
            return true;
        }
        return post(context);
    }

    /**
     * failed() - remember why the send side failed (the first reason wins), for the log line
     * that says why the connection closes.
     */
    void failed(String reason) {
        if (failure == null) {
            failure = reason;
        }
    }

    /** @return why the send side failed, or null */
    public String failure() {
        return failure;
    }

    /** describe() - a completion's status for a log line: the status and the vendor's code. */
    public static String describe(WorkCompletion wc) {
        return wc.status() + (wc.vendorError() != 0 ? " (vendor error 0x" + Integer.toHexString(wc.vendorError()) + ")" : "");
    }

    /** @return false when a post failed */
    public boolean pump() {
        while (!waiting.isEmpty() && reserve(1)) {
            if (!post(waiting.pollFirst())) {
                return false;
            }
        }
        return true;
    }

    private boolean post(SendContext context) {
        try {
            queuePair.postSend(context.request());
            counters.incrementOwned(Counter.SENDS);
            counters.incrementOwned(Counter.SEND_POSTS);
            return true;
        } catch (VerbsException e) {
            unreserve(1);
            abandon(context);
            counters.increment(Counter.POST_FAILURES);
            failed("posting a SEND failed: " + e.getMessage());
            return false;
        }
    }

    /**
     * onSendCompletion() - a SEND completed: its slot, those of the WRITEs chained before it, and
     * its buffer are free again.
     *
     * @return true on success or flush; false on an error that must close the connection
     */
    public boolean onSendCompletion(WorkCompletion wc) {
        SendContext context = contexts[WorkRequestIds.index(wc.id())];
        outstanding -= context.takeSlots();
        assert outstanding >= 0 : "a SEND's completion gave back slots never taken: " + outstanding;
        abandon(context);
        if (wc.isSuccess() || wc.status() == CompletionStatus.WORK_REQUEST_FLUSHED) {
            return true;
        }
        counters.increment(Counter.SEND_ERRORS);
        failed("a SEND completed with " + describe(wc));
        return false;
    }

    /**
     * onWriteCompletion() - an RDMA WRITE of a reply completed, which an unsignaled WRITE does
     * only in error or flushed. Behind a posted SEND its slot is the SEND's to give back (with the
     * staging memory); behind a SEND that failed to post, the WRITE's completion gives back its own
     * slot, and the last one the context.
     *
     * @return true on success or flush; false on an error that must close the connection
     */
    public boolean onWriteCompletion(WorkCompletion wc) {
        SendContext context = contexts[WorkRequestIds.index(wc.id())];
        if (context.writesBeforeRelease > 0) {
            outstanding--;
            assert outstanding >= 0 : "a WRITE's completion gave back a slot never taken: " + outstanding;
            if (--context.writesBeforeRelease == 0) {
                abandon(context);
            }
        }
        if (wc.isSuccess() || wc.status() == CompletionStatus.WORK_REQUEST_FLUSHED) {
            return true;
        }
        counters.increment(Counter.SEND_ERRORS);
        failed("an RDMA WRITE of a reply completed with " + describe(wc));
        return false;
    }

    /** dropWaiting() - forget SENDs still waiting (the connection is closing). */
    public void dropWaiting() {
        while (!waiting.isEmpty()) {
            abandon(waiting.pollFirst());
        }
    }

    /**
     * forgetPosted() - the queue pair was destroyed with requests whose completions never came (a
     * device that lost its flushes): every context not free is a posted SEND or a reply whose
     * WRITEs were posted (contexts are acquired and posted under the send lock, and waiting ones
     * were dropped when the close began), so each goes back to the pool with its staging, and no
     * slot stays taken. Only after the queue pair is gone, and after the READ chains were settled.
     */
    public void forgetPosted() {
        boolean[] free = new boolean[contexts.length];
        for (int i = 0; i < freeCount; i++) {
            free[freeStack[i]] = true;
        }
        for (SendContext c : waiting) {
            free[c.index()] = true;
        }
        for (int i = 0; i < contexts.length; i++) {
            if (!free[i]) {
                contexts[i].writesBeforeRelease = 0;
                abandon(contexts[i]);
            }
        }
        outstanding = 0;
    }

    /** @return send buffers not in the pool */
    public int buffersInUse() {
        return contexts.length - freeCount;
    }

    /** deregister() - release the send buffers' registration; after the queue pair is gone. */
    public void deregister() {
        try {
            region.deregister();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
    }

    /** @return a request to post directly (used by READ chains); slots MUST be reserved first */
    public void postChain(SendWorkRequest first) throws VerbsException {
        // counted before the post, as the reply it may carry can reach its client first
        counters.incrementOwned(Counter.SEND_POSTS);
        try {
            queuePair.postSend(first);
        } catch (VerbsException e) {
            counters.addOwned(Counter.SEND_POSTS, -1);
            throw e;
        }
    }
}
