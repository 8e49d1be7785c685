package org.rpcrdma4j.transport.internal.read;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.transport.internal.common.PostOutcome;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * ReadScheduler - pull the read chunks of one connection's deferred calls with RDMA READ.
 *
 * <p>Calls wait in arrival order. The call at the head takes all its sinks at once, then its
 * READs are posted while fewer than the ORD limit are in flight and the send queue has room for
 * their chains; the next call starts when the head's READs are all posted. A call is complete
 * when every chain of its READs has completed; a failed chain fails its call, which is dropped
 * once nothing of it is in flight. Nothing blocks: {@link #pump()} runs again after every batch of
 * completions and every release.
 *
 * <p>The sinks are shared with the loop's other connections ({@link PoolShare}): the head call
 * takes its sinks only when this connection is within its share of the pool (what its credits
 * justify, at most a fair part of the pool when others compete); past it, the call waits for this
 * connection's own releases (counted: {@link Counter#READ_SINK_SHARE_WAITS}), so a greedy or
 * stalled connection cannot hold every sink and delay the others' READs.
 *
 * <p>Each READ slot remembers its call and sink, and the sink its strategy's pool. Confined to the
 * completion thread.
 */
public final class ReadScheduler<C extends ReadingCall> {
    /** What the connection learns from a completed chain. */
    public interface Listener<C extends ReadingCall> {
        /** Every READ of the call completed; assemble and deliver it. */
        void onReadsComplete(C ctx);

        /** The call failed and nothing of it is in flight any more; drop it. */
        void onReadsFailed(C ctx);

        /**
         * A READ failed with an error (not a flush): the connection must close.
         *
         * @param reason what failed, for the log line
         */
        void onReadError(String reason);

        /**
         * The strategy the call was planned with went away before it took any sink: plan it
         * again with the active strategy.
         *
         * @return true when re-planned; false when the call was answered and dropped
         */
        boolean onPoolRetired(C ctx);
    }

    private final ArrayDeque<C> queue;
    private final SendQueue sendQueue;
    private final Counters counters;
    private final Listener<C> listener;
    private final ReadRequestChain chain;
    private final C[] slotCall;
    private final int[] slotPiece;
    private final int[] slotPending;
    private final boolean[] slotFailed;
    private final int[] freeSlots;
    private int freeSlotCount;
    private Counter stalled;
    /** The most one call may pull, and the credits granted: what the connection's share is measured by. */
    private final long maxReadBytes;
    private final int credits;
    /** This connection's account in each pool it used (one, unless the strategy changed). */
    private final List<StrategyPool> sharedPools = new ArrayList<>(2);
    private final List<PoolShare.Account> accounts = new ArrayList<>(2);

    public ReadScheduler(int ord, int maxReadSge, int maxCalls, int credits, long maxReadBytes, SendQueue sendQueue,
                  Counters counters, Listener<C> listener) {
        this.credits = credits;
        this.maxReadBytes = maxReadBytes;
        this.queue = new ArrayDeque<>(maxCalls);
        this.sendQueue = sendQueue;
        this.counters = counters;
        this.listener = listener;
        this.chain = new ReadRequestChain(maxReadSge);
        @SuppressWarnings("unchecked")
        C[] calls = (C[]) new ReadingCall[ord];
        this.slotCall = calls;
        this.slotPiece = new int[ord];
        this.slotPending = new int[ord];
        this.slotFailed = new boolean[ord];
        this.freeSlots = new int[ord];
        for (int i = 0; i < ord; i++) {
            freeSlots[i] = ord - 1 - i;
        }
        freeSlotCount = ord;
    }

    /** @return READs in flight (their chains not yet complete) */
    public int inFlight() {
        return slotCall.length - freeSlotCount;
    }

    /** @return calls waiting for READs to be posted */
    int queued() {
        return queue.size();
    }

    /** enqueue() - a call whose plan is built waits for its READs. */
    public void enqueue(C ctx) {
        queue.addLast(ctx);
    }

    /**
     * pump() - post what the ORD limit, the send queue and the sink pools allow.
     *
     * @return READs posted
     */
    public int pump() {
        int posted = 0;
        C head;
        while ((head = queue.peekFirst()) != null) {
            ReadPlan plan = head.readPlan();
            if (plan.failed() || !plan.hasUnposted()) {
                finishQueued(queue.pollFirst());
                continue;
            }
            if (!plan.hasSinks() && plan.pool().isRetired()) {
                accountIn(plan.pool()).stopWaiting();
                if (!listener.onPoolRetired(head)) {
                    queue.pollFirst();
                }
                continue;
            }
            if (!plan.hasSinks() && !takeSinks(plan)) {
                break;
            }
            if (freeSlotCount == 0) {
                stall(Counter.READ_ORD_STALLS);
                break;
            }
            PostOutcome outcome = postNext(head, plan);
            if (outcome == PostOutcome.MUST_WAIT) {
                stall(Counter.SEND_QUEUE_FULL);
                break;
            }
            stalled = null;
            if (outcome == PostOutcome.POSTED) {
                posted++;
            }
        }
        if (queue.isEmpty()) {
            stalled = null;
            for (int i = 0; i < accounts.size(); i++) {
                accounts.get(i).stopWaiting();
            }
        }
        return posted;
    }

    /**
     * takeSinks() - the head call takes its sinks if this connection's share and the pool allow.
     *
     * @return true when it holds them
     */
    private boolean takeSinks(ReadPlan plan) {
        StrategyPool pool = plan.pool();
        PoolShare.Account account = accountIn(pool);
        switch (account.admit(plan.pieceCount(), pool.free())) {
            case OVER_SHARE:
                stall(Counter.READ_SINK_SHARE_WAITS);
                return false;
            case POOL_EMPTY:
                stall(Counter.READ_SINK_STARVATION);
                return false;
            default:
                if (!plan.allocateSinks(account)) {
                    account.poolEmpty();
                    stall(Counter.READ_SINK_STARVATION);
                    return false;
                }
                return true;
        }
    }

    /** @return this connection's account in {@code pool}, opened on first use (closed pools' idle accounts dropped) */
    private PoolShare.Account accountIn(StrategyPool pool) {
        for (int i = 0; i < sharedPools.size(); i++) {
            if (sharedPools.get(i) == pool) {
                return accounts.get(i);
            }
        }
        for (int i = sharedPools.size() - 1; i >= 0; i--) {
            PoolShare.Account a = accounts.get(i);
            if (sharedPools.get(i).isClosed() && a.held() == 0 && !a.waiting()) {
                sharedPools.remove(i);
                accounts.remove(i);
            }
        }
        long perCall = Math.max(1, (maxReadBytes + pool.sinkLength() - 1) / pool.sinkLength());
        PoolShare.Account account = pool.share().account(Math.min(Integer.MAX_VALUE, perCall * credits));
        sharedPools.add(pool);
        accounts.add(account);
        return account;
    }

    /** @return sinks this connection holds in every pool (for its usage line and tests) */
    public long heldSinks() {
        long n = 0;
        for (int i = 0; i < accounts.size(); i++) {
            n += accounts.get(i).held();
        }
        return n;
    }

    /** stall() - count a hold-up once per episode, not once per pass while it lasts. */
    private void stall(Counter reason) {
        if (stalled != reason) {
            counters.increment(reason);
            stalled = reason;
        }
    }

    /**
     * postNext() - post the next READ chain of the head call.
     *
     * @return POSTED; MUST_WAIT when the send queue is full; FAILED when the call failed (the
     *         strategy could not prepare the chain, or the post failed)
     */
    private PostOutcome postNext(C ctx, ReadPlan plan) {
        if (!sendQueue.reserve(ReadRequestChain.MAX_REQUESTS)) {
            return PostOutcome.MUST_WAIT;
        }
        int slot = freeSlots[freeSlotCount - 1];
        int piece = plan.takeNextPiece();
        ReadSink sink = plan.pieceSink(piece);
        chain.begin(WorkRequestIds.of(WorkRequestIds.READ, slot));
        if (!prepare(sink, plan, piece)) {
            sendQueue.unreserve(ReadRequestChain.MAX_REQUESTS);
            plan.pieceCompleted(false);
            return PostOutcome.FAILED;
        }
        int n = chain.size();
        sendQueue.unreserve(ReadRequestChain.MAX_REQUESTS - n);
        freeSlotCount--;
        slotCall[slot] = ctx;
        slotPiece[slot] = piece;
        slotFailed[slot] = false;
        slotPending[slot] = n;
        try {
            sendQueue.postChain(chain.first());
            counters.incrementOwned(Counter.READ_POSTS);
        } catch (VerbsException e) {
            int accepted = Math.max(0, e.failedIndex());
            sendQueue.unreserve(n - accepted);
            counters.increment(Counter.POST_FAILURES);
            slotFailed[slot] = true;
            slotPending[slot] = accepted;
            plan.fail();
            if (accepted == 0) {
                finishSlot(slot);
            }
            listener.onReadError("posting an RDMA READ chain of " + n + " request(s) failed at request " + e.failedIndex() + ": "
                    + e.getMessage());
            return PostOutcome.FAILED;
        }
        counters.readStarted(plan.pool().name());
        return PostOutcome.POSTED;
    }

    /** @return false when the strategy could not prepare the chain (a strategy that throws counts as that) */
    private boolean prepare(ReadSink sink, ReadPlan plan, int piece) {
        try {
            return sink.prepareRead(chain, plan.pieceLength(piece), plan.pieceRemote(piece), plan.pieceRkey(piece));
        } catch (RuntimeException e) {
            counters.increment(Counter.POST_FAILURES);
            chain.begin(0);
            return false;
        }
    }

    /**
     * onReadCompletion() - one request of a READ chain completed.
     */
    public void onReadCompletion(WorkCompletion wc) {
        int slot = WorkRequestIds.index(wc.id());
        sendQueue.unreserve(1);
        if (!wc.isSuccess()) {
            slotFailed[slot] = true;
            if (wc.status() != CompletionStatus.WORK_REQUEST_FLUSHED) {
                counters.increment(Counter.READ_ERRORS);
                listener.onReadError("an RDMA READ of a read chunk completed with " + SendQueue.describe(wc));
            }
        }
        if (--slotPending[slot] == 0) {
            finishSlot(slot);
        }
    }

    private void finishSlot(int slot) {
        C ctx = slotCall[slot];
        ReadPlan plan = ctx.readPlan();
        boolean success = !slotFailed[slot];
        int piece = slotPiece[slot];
        plan.pieceSink(piece).readCompleted(success);
        if (success) {
            counters.addOwned(Counter.READ_BYTES, plan.pieceLength(piece));
        }
        plan.pieceCompleted(success);
        slotCall[slot] = null;
        freeSlots[freeSlotCount++] = slot;
        if (!plan.queued()) {
            settle(ctx);
        }
    }

    /** A call left the queue (all posted, or failed): settle it once nothing is in flight. */
    private void finishQueued(C ctx) {
        ctx.readPlan().dequeued();
        settle(ctx);
    }

    private void settle(C ctx) {
        ReadPlan plan = ctx.readPlan();
        if (!plan.quiet()) {
            return;
        }
        if (plan.failed()) {
            listener.onReadsFailed(ctx);
        } else if (plan.done()) {
            listener.onReadsComplete(ctx);
        }
    }

    /**
     * abandonInFlight() - the queue pair was destroyed with READ chains whose completions never
     * came (a device that lost its flushes): settle each as a flushed chain, so its sink goes back
     * to its pool through the strategy's failure path (a fast-registered key still valid is
     * replaced, never reused) and its call is dropped. Only after the queue pair is gone.
     */
    public void abandonInFlight() {
        for (int slot = 0; slot < slotCall.length; slot++) {
            if (slotCall[slot] != null) {
                sendQueue.unreserve(slotPending[slot]);
                slotPending[slot] = 0;
                slotFailed[slot] = true;
                finishSlot(slot);
            }
        }
    }

    /**
     * failAll() - the connection is closing: every queued call fails; those with nothing in
     * flight are dropped now, the others when their chains flush.
     */
    public void failAll() {
        for (int i = 0; i < accounts.size(); i++) {
            accounts.get(i).stopWaiting();
        }
        C ctx;
        while ((ctx = queue.pollFirst()) != null) {
            ctx.readPlan().fail();
            finishQueued(ctx);
        }
        for (C c : slotCall) {
            if (c != null) {
                c.readPlan().fail();
            }
        }
    }
}
