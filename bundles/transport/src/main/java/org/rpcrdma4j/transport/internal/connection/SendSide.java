package org.rpcrdma4j.transport.internal.connection;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.LatencyHistogram;
import org.rpcrdma4j.transport.internal.common.PostOutcome;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivePool;
import org.rpcrdma4j.transport.internal.sendto.ReplyJob;
import org.rpcrdma4j.transport.internal.sendto.ReplySender;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * SendSide - the send lock of one connection and what the loop and the workers do under it: a
 * worker that finds it free posts its own reply (and reposts a released call's receive), as an
 * nfsd thread calls svc_rdma_sendto; else it hands its reply to the loop. The loop holds it for
 * each pass over the connection.
 *
 * <p>The lock guards the send side (send queue, reply sender, READ scheduler's send-queue share,
 * the back channel's posts). A worker never blocks on it. Nor does the loop wait for a worker's
 * post (on rxe a post does the soft device's work in the posting thread): it defers its pass over
 * this connection ({@link #lockForPass}) and serves the others, and the worker wakes it when it
 * lets go. Only the close takes it blocking.
 *
 * <p>The connection's counters and its reply-latency histogram are written under this lock
 * (single writer).
 */
final class SendSide {
    private final ConnectionState connection;
    private final ConnectionLoop loop;
    private final ReentrantLock sendLock = new ReentrantLock();
    /** The connection's counts; single-writer counts (Counters#addOwned) are made under the send lock. */
    private final Counters counters;
    /** The connection's reply latency: recorded under the send lock by whoever posts a reply (single writer). */
    private final LatencyHistogram replyLatency = new LatencyHistogram(sendLock::isHeldByCurrentThread);
    /** Replies sent by RPC-layer threads, taken over by the completion thread in its pass. */
    private final ConcurrentLinkedQueue<ReplyJob> submittedReplies = new ConcurrentLinkedQueue<>();
    /**
     * The loop found {@link #sendLock} held and deferred its pass: whoever lets go of the lock
     * wakes the loop ({@link #unlockSend}).
     */
    private volatile boolean passWanted;
    /** Set by a worker whose post failed: the loop closes the connection on its next pass. */
    private volatile String workerPostFailure;
    private ReceivePool receivePool;
    private SendQueue sendQueue;
    private ReplySender replySender;
    private QueuePair queuePair;

    SendSide(ConnectionState connection, ConnectionLoop loop) {
        this.connection = connection;
        this.loop = loop;
        this.counters = loop.counters().newWriter(sendLock::isHeldByCurrentThread);
    }

    /** attach() - the parts a worker posts to, once the connection's open made them (loop thread, before any call). */
    void attach(ReceivePool receivePool, SendQueue sendQueue, ReplySender replySender, QueuePair queuePair) {
        this.receivePool = receivePool;
        this.sendQueue = sendQueue;
        this.replySender = replySender;
        this.queuePair = queuePair;
    }

    Counters counters() {
        return counters;
    }

    LatencyHistogram replyLatency() {
        return replyLatency;
    }

    /** @return why a worker's post failed, or null; the loop closes the connection on it */
    String workerPostFailure() {
        return workerPostFailure;
    }

    /**
     * lockForPass() - the loop takes the send lock for a pass over this connection, unless a
     * worker is posting: then it asks the worker to wake the loop when it lets go, and defers.
     *
     * @return true when the loop holds the lock (release it with {@link #unlockAfterPass}); false: pass deferred
     */
    boolean lockForPass() {
        if (!sendLock.tryLock()) {
            // A worker is posting. Ask it to wake the loop when it lets go, then look once more:
            // it may have let go before it could see the request.
            passWanted = true;
            if (!sendLock.tryLock()) {
                counters.increment(Counter.LOOP_PASSES_DEFERRED);
                return false;
            }
        }
        passWanted = false;
        return true;
    }

    void unlockAfterPass() {
        sendLock.unlock();
    }

    /** lock() - blocking: only the close (and retiring the counters) takes the send lock this way. */
    void lock() {
        sendLock.lock();
    }

    void unlock() {
        sendLock.unlock();
    }

    /** unlockSend() - a worker lets go of the send lock, waking the loop when it deferred a pass meanwhile. */
    private void unlockSend() {
        sendLock.unlock();
        if (passWanted) {
            passWanted = false;
            loop.wakeup();
        }
    }

    /**
     * underSendLock() - run {@code action} holding the send lock as a worker does (tests: a worker
     * stuck in a post), letting go of it as a worker does.
     */
    void underSendLock(Runnable action) {
        sendLock.lock();
        try {
            action.run();
        } finally {
            unlockSend();
        }
    }

    /**
     * submitReply() - an RPC-layer thread sent a reply: post it here when the send lock is free,
     * else queue it for the completion thread; drop it (counted) when the connection is closing.
     */
    void submitReply(ReplyJob job) {
        if (connection.isClosing() || connection.isCloseRequested()) {
            job.recycle();
            counters.increment(Counter.REPLIES_DROPPED);
            return;
        }
        loop.repliesInTransit().incrementAndGet();
        if (sendLock.tryLock()) {
            try {
                if (postOnThisThread(job)) {
                    return;
                }
            } finally {
                unlockSend();
            }
        }
        submittedReplies.add(job);
        if (connection.isClosing()) {
            // Raced with beginClose(): whichever of us drains the queue counts the drop.
            dropSubmittedReplies();
        }
        loop.wakeup();
    }

    /**
     * postOnThisThread() - under {@link #sendLock}, on the worker that built the reply: queue it
     * behind any reply still waiting for resources and post what can go now. A failed post is
     * left to the loop, which closes the connection (closing touches loop-only state).
     *
     * @return true when the reply was taken (posted, waiting for resources, or dropped because
     *         the connection is closing); false to hand it to the loop instead
     */
    private boolean postOnThisThread(ReplyJob job) {
        assert sendLock.isHeldByCurrentThread() : "a reply posted without the send lock";
        if (connection.isClosing()) {
            loop.repliesInTransit().decrementAndGet();
            job.recycle();
            counters.increment(Counter.REPLIES_DROPPED);
            return true;
        }
        if (workerPostFailure != null) {
            return false;
        }
        replySender.enqueue(job);
        if (replySender.pump() == PostOutcome.FAILED || !sendQueue.pump()) {
            workerPostFailure = sendQueue.failure();
            loop.wakeup();
        }
        return true;
    }

    /** takeSubmittedReplies() - the loop's pass, under the send lock: the replies workers handed in join the reply sender's queue. */
    int takeSubmittedReplies() {
        assert sendLock.isHeldByCurrentThread() : "takeSubmittedReplies() without the send lock";
        int n = 0;
        ReplyJob job;
        while ((job = submittedReplies.poll()) != null) {
            replySender.enqueue(job);
            n++;
        }
        return n;
    }

    /** dropSubmittedReplies() - the connection closes: the replies handed in are dropped (counted). */
    void dropSubmittedReplies() {
        ReplyJob job;
        while ((job = submittedReplies.poll()) != null) {
            loop.repliesInTransit().decrementAndGet();
            job.recycle();
            counters.increment(Counter.REPLIES_DROPPED);
        }
    }

    /**
     * returnContext() - a handler released a call (any thread). An inline call's context is
     * recycled and reposted right here when the send lock is free (it holds no READ sink, which
     * the loop's pools own), so the loop is not woken once per call; otherwise it goes back
     * through the loop.
     */
    void returnContext(ReceiveContext ctx) {
        if (!ctx.hasReadChunks() && !connection.isClosing() && sendLock.tryLock()) {
            try {
                if (!connection.isClosing() && workerPostFailure == null) {
                    receivePool.recycle(ctx);
                    try {
                        receivePool.postReceives(queuePair);
                    } catch (VerbsException e) {
                        counters.increment(Counter.POST_FAILURES);
                        workerPostFailure = "posting receives failed: " + e.getMessage();
                        loop.wakeup();
                    }
                    return;
                }
            } finally {
                unlockSend();
            }
        }
        receivePool.returnContext(ctx);
        loop.wakeup();
    }
}
