package org.rpcrdma4j.transport.internal.connection;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaCm;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.internal.CompletionLoop;
import org.rpcrdma4j.transport.internal.TransportEngine;
import org.rpcrdma4j.transport.internal.UsageTally;
import org.rpcrdma4j.transport.internal.read.ReadScheduler;
import org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivePool;
import org.rpcrdma4j.transport.internal.sendto.ErrorReplies;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.transport.internal.sendto.ReplyJob;
import org.rpcrdma4j.transport.internal.sendto.ReplyJobPool;
import org.rpcrdma4j.transport.internal.sendto.ReplySender;
import org.rpcrdma4j.transport.internal.sendto.ReplyStaging;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConnectionState - one accepted connection: its completion queue, receive pool, send queue and
 * READ scheduler, the receive path that decodes each message, and its orderly close.
 *
 * <p>What each received message means is the {@link MessageDispatcher}'s business.
 *
 * <p>Phases: ACCEPTING → ESTABLISHED → CLOSING (disconnected; outstanding work flushes) → CLOSED
 * (queue pair, completion queue and registrations released) → removed once every call handed to
 * the handler has been released. Every resource has this one owner and is released once, on
 * every path (CVE-2026-93224 class: a failed accept releases exactly what it set up).
 *
 * <p>Threading: confined to its completion loop, except the {@link RdmaConnection} getters,
 * {@link #close()}, {@link #returnContext} and {@link #submitReply} (any thread). The send side
 * (send queue, reply sender, READ scheduler, back-channel posts) is guarded by a per-connection
 * lock the loop holds for each pass: a worker that finds it free posts its reply itself (one
 * thread hand-off per call, as svc_rdma_sendto runs on the nfsd thread), else queues it for the
 * loop. Nobody waits for it: a loop that finds a worker posting defers its pass over this
 * connection until the worker lets go (and wakes it); only the close takes it blocking.
 */
public final class ConnectionState implements RdmaConnection {
    private static final int ACCEPTING = 0;
    private static final int ESTABLISHED = 1;
    private static final int CLOSING = 2;
    private static final int CLOSED = 3;
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionState.class);

    private final CompletionLoop loop;
    private final Connection connection;
    private final DeviceResources device;
    private final Counters counters;
    private final TransportConfig config;
    private final InetSocketAddress remoteAddress;
    private final InetSocketAddress localAddress;
    private final int replySizeLimit;
    private final boolean remoteInvalidation;
    private final ConnectionBackchannel backchannel;
    private CompletionQueue completionQueue;
    private ReceivePool receivePool;
    private SendQueue sendQueue;
    private ReadScheduler readScheduler;
    private MessageDispatcher dispatcher;
    private ReplySender replySender;
    /** This connection's share of the loop's reply staging slab. */
    private ReplyStaging replyStaging;
    /** The per-call reply contexts, at most one per receive context. */
    private final ReplyJobPool replyJobs;
    /** Replies sent by RPC-layer threads, taken over by the completion thread in {@link #doWork}. */
    private final ConcurrentLinkedQueue<ReplyJob> submittedReplies = new ConcurrentLinkedQueue<>();
    private QueuePair queuePair;
    private volatile int phase = ACCEPTING;
    private volatile boolean closeRequested;
    /**
     * Guards the send side (send queue, reply sender, READ scheduler's send-queue share, the
     * back channel's posts) so that a worker can post its own reply, as an nfsd thread calls
     * svc_rdma_sendto: the loop holds it for each pass over this connection; a worker that finds it
     * free posts at once, else hands its reply to the loop (never blocks on it). Nor does the loop
     * wait for a worker's post (on rxe a post does the soft device's work in the posting thread):
     * it defers its pass over this connection ({@link #passWanted}) and serves the others.
     */
    private final ReentrantLock sendLock = new ReentrantLock();
    /**
     * The loop found {@link #sendLock} held and deferred its pass: whoever lets go of the lock
     * wakes the loop ({@link #unlockSend}).
     */
    private volatile boolean passWanted;
    /** Set by a worker whose post failed: the loop closes the connection on its next pass. */
    private volatile String workerPostFailure;
    private boolean completionQueueArmed;
    /** When this connection last saw a completion, or had nothing outstanding (loop clock). */
    private long lastProgressNanos;
    /** Why the connection closes, for its closed line: the first reason given wins. */
    private String closeReason;

    public ConnectionState(CompletionLoop loop, Connection connection, DeviceResources device, ConnectionPrivateData peer) {
        this.loop = loop;
        this.connection = connection;
        this.device = device;
        this.config = loop.config();
        // Single-writer counts (Counters#addOwned) are made under the send lock: a pass of the
        // loop, or a worker posting its reply.
        this.counters = loop.counters().newWriter(sendLock::isHeldByCurrentThread);
        try {
            this.remoteAddress = connection.remoteAddress();
            this.localAddress = connection.localAddress();
            this.replySizeLimit = peer != null ? peer.maxReceiveSize() : RpcRdma.DEFAULT_INLINE_THRESHOLD;
            // Send With Invalidate (RFC 8797) only when the client asked for it and this device can
            // post it (svcrdma: sc_snd_w_inv needs IB_DEVICE_MEM_MGT_EXTENSIONS as well).
            this.remoteInvalidation = peer != null && peer.remoteInvalidate() && device.device().capabilities().remoteInvalidation();
            this.replyJobs = new ReplyJobPool(this, config.limits(), config.receiveContexts());
            this.backchannel = new ConnectionBackchannel(this, loop, counters, config.backchannelCredits(),
                    Math.min(replySizeLimit, config.maxInlineSend()));
        } catch (RuntimeException | Error e) {
            retireCounters();
            throw e;
        }
    }

    /**
     * open() - set up every resource, post the receives and accept with our private data.
     *
     * <p>On failure everything set up so far is released, once: the request is rejected, the
     * connection (and with it the queue pair) closed, the completion queue closed, the buffers
     * deregistered; then the exception propagates.
     *
     * @throws VerbsException when the device or the connection manager refuses
     */
    public void open(QueuePairSizing sizing) throws VerbsException {
        try {
            completionQueue = loop.createCompletionQueue(device.device(), sizing.completionQueueCapacity());
            receivePool = new ReceivePool(this, device.protectionDomain(), config.receiveContexts(),
                    config.inlineReceiveThreshold(), config.credits() + config.backchannelCredits(), config.repostBatch(),
                    config.limits(), counters);
            replyStaging = new ReplyStaging(device.replyStaging(), config.credits(), counters);
            sendQueue = new SendQueue(device.protectionDomain(), sizing.sendQueueDepth(), config.sendBuffers(),
                    Math.min(replySizeLimit, config.maxInlineSend()), sizing.maxSendSge(), replyStaging, counters,
                    loop.repliesInTransit());
            ErrorReplies errorReplies = new ErrorReplies(sendQueue, counters, config.credits());
            dispatcher = new MessageDispatcher(this, loop, device, receivePool, errorReplies, counters, backchannel);
            replySender = new ReplySender(sendQueue,
                    replyStaging, errorReplies, counters, loop.repliesInTransit(), config.credits(),
                    Math.min(replySizeLimit, sendQueue.bufferLength()));
            readScheduler = new ReadScheduler(sizing.outstandingReads(), sizing.maxReadSge(), config.receiveContexts(),
                    config.credits(), config.limits().maxReadBytes(), sendQueue, counters, dispatcher);
            dispatcher.attach(readScheduler);
            queuePair = connection.createQueuePair(device.protectionDomain(), sizing.attributes(completionQueue));
            sendQueue.attach(queuePair);
            receivePool.postReceives(queuePair);
            connection.attach(this);
            lastProgressNanos = loop.now();
            connection.accept(acceptPrivateData());
        } catch (VerbsException | RuntimeException e) {
            releaseAfterFailedOpen();
            logLifecycle("rejected", e.getMessage());
            throw e;
        }
        logLifecycle("opened", null);
    }

    private ByteBuffer acceptPrivateData() {
        ByteBuffer data = ByteBuffer.allocate(RpcRdmaCm.PRIVATE_DATA_BYTES);
        new ConnectionPrivateData(Math.min(replySizeLimit, config.maxInlineSend()), config.inlineReceiveThreshold(), false)
                .encode(data, 0);
        return data;
    }

    private void releaseAfterFailedOpen() {
        retireCounters();
        connection.attach(null);
        TransportEngine.rejectAndClose(connection);
        if (receivePool != null) {
            receivePool.forgetPosted();
        }
        closeQuietly(completionQueue);
        if (receivePool != null) {
            receivePool.deregister();
        }
        if (sendQueue != null) {
            sendQueue.deregister();
        }
        phase = CLOSED;
    }

    public Counters counters() {
        return counters;
    }

    /**
     * retireCounters() - the connection is gone (removed, or its open failed): the transport keeps
     * its counts and stops summing its counters. Takes the send lock, as their writer.
     */
    public void retireCounters() {
        sendLock.lock();
        try {
            counters.retire();
        } finally {
            sendLock.unlock();
        }
    }

    /** @return the completion loop that owns this connection */
    public CompletionLoop loop() {
        return loop;
    }

    /**
     * armCompletionQueue() - before the loop sleeps: ask for a notification of the next completion
     * unless one is already requested. Loop thread only.
     */
    public void armCompletionQueue() throws VerbsException {
        assert loop.inLoop() : "armCompletionQueue() off the loop thread";
        if (!completionQueueArmed && phase < CLOSED) {
            completionQueue.requestNotification();
            completionQueueArmed = true;
        }
    }

    /** @return true when {@code cq} is this connection's queue (its one-shot arm is now used up) */
    public boolean onCompletionQueueFired(CompletionQueue cq) {
        if (cq != completionQueue) {
            return false;
        }
        completionQueueArmed = false;
        return true;
    }

    /** onConnectionEvent() - the connection manager's word about this connection, on the loop thread. */
    public void onConnectionEvent(ConnectionEventType type) {
        assert loop.inLoop() : "onConnectionEvent() off the loop thread";
        switch (type) {
            case ESTABLISHED:
                onEstablished();
                break;
            case DISCONNECTED:
                beginClose(false);
                break;
            case CONNECT_ERROR:
            case REJECTED:
            case UNREACHABLE:
            case DEVICE_REMOVAL:
            case QUEUE_PAIR_FATAL:
                fail("the connection manager reported " + type);
                break;
            default:
                break;
        }
    }

    DeviceResources device() {
        return device;
    }

    void onEstablished() {
        if (phase == ACCEPTING) {
            phase = ESTABLISHED;
        }
    }

    /**
     * doWork() - one pass: take back released calls, handle completions, post READs, SENDs and
     * receives, and finish a close when everything has flushed.
     *
     * @param completions the engine's reusable completion array
     * @return work done (completions handled, calls returned, requests posted)
     */
    public int doWork(WorkCompletion[] completions) {
        assert loop.inLoop() : "doWork() off the loop thread";
        if (!sendLock.tryLock()) {
            // A worker is posting. Ask it to wake the loop when it lets go, then look once more:
            // it may have let go before it could see the request.
            passWanted = true;
            if (!sendLock.tryLock()) {
                counters.increment(Counter.LOOP_PASSES_DEFERRED);
                return 0;
            }
        }
        passWanted = false;
        try {
            return doWorkLocked(completions);
        } finally {
            sendLock.unlock();
        }
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

    private int doWorkLocked(WorkCompletion[] completions) {
        int work = receivePool.drainReturned();
        String failure = workerPostFailure;
        if (failure != null && phase < CLOSING) {
            fail(failure);
        }
        if (closeRequested && phase < CLOSING) {
            beginClose(false);
        }
        if (phase == CLOSED) {
            return work;
        }
        int completed = pollCompletions(completions);
        work += completed;
        checkStalled(completed);
        work += takeSubmittedReplies();
        work += readScheduler.pump();
        if (!sendQueue.pump()) {
            fail(sendQueue.failure());
        }
        if (phase < CLOSING) {
            int replies = replySender.pump();
            if (replies < 0) {
                fail(sendQueue.failure());
            } else {
                work += replies;
            }
            int calls = backchannel.pump(sendQueue);
            if (calls < 0) {
                fail(sendQueue.failure());
            } else {
                work += calls;
            }
        }
        if (phase < CLOSING) {
            work += postReceives();
        } else if (receivePool.posted() == 0 && !requestsOutstanding()) {
            tearDown();
            work++;
        } else if (pastStallDeadline(loop.now())) {
            reclaimUnflushed();
            tearDown();
            work++;
        }
        return work;
    }

    /**
     * reclaimUnflushed() - the close's deadline: the queue pair is in error, yet some of what was
     * posted on it has not flushed within {@code stallTimeoutSeconds}, and never will (Soft-iWARP
     * of Linux 6.1 leaves the receive it held at a TERMINATE, and work posted to a user queue pair
     * as it fails, outstanding for ever). Without a deadline the connection would hold its sinks,
     * send slots and staging, and keep the transport from closing, for good. Destroying the queue
     * pair first guarantees the device touches none of that memory again; then each outstanding
     * request is settled as if it had flushed.
     */
    private void reclaimUnflushed() {
        counters.increment(Counter.CLOSE_FLUSHES_LOST);
        LOG.warn("RPC-over-RDMA connection from {} to {}: {} receives and {} send-queue requests ({} of them in READ chains) "
                + "did not flush within {} s of its close; the device lost their completions. Destroying the queue pair "
                + "and reclaiming what they held", remoteAddress, localAddress, receivePool.posted(), sendQueue.outstanding(),
                readScheduler.inFlight(), config.stallTimeoutSeconds());
        connection.attach(null);
        connection.close();
        readScheduler.abandonInFlight();
        sendQueue.forgetPosted();
    }

    /**
     * checkStalled() - the deadline on work that does not complete: while this connection has
     * SENDs, WRITEs or READs outstanding, some completion must come within
     * {@code stallTimeoutSeconds}; else the peer stopped (stopped posting receives and retries RNR
     * for ever, or stopped answering READs) and the connection is closed, so the sinks, staging
     * and send slots it holds go back to the other connections. While closing, the same deadline
     * bounds the wait for the flushes, receives included (see {@link #reclaimUnflushed()}).
     */
    private void checkStalled(int completed) {
        long now = loop.now();
        if (completed > 0 || (!requestsOutstanding() && (phase < CLOSING || receivePool.posted() == 0))) {
            lastProgressNanos = now;
            return;
        }
        if (phase < CLOSING && pastStallDeadline(now)) {
            counters.increment(Counter.CONNECTIONS_STALLED);
            fail("no work completed for " + config.stallTimeoutSeconds() + " s with " + sendQueue.outstanding()
                    + " sends and writes and " + readScheduler.inFlight() + " READs outstanding: the peer stopped");
        }
    }

    /** @return true when nothing has completed for {@code stallTimeoutSeconds} (or since the close began) */
    private boolean pastStallDeadline(long now) {
        return now - lastProgressNanos > loop.stallTimeoutNanos();
    }

    private int pollCompletions(WorkCompletion[] completions) {
        int n;
        try {
            n = completionQueue.poll(completions, completions.length);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            fail("polling the completion queue failed: " + e.getMessage());
            return 0;
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (wc.status() == CompletionStatus.WORK_REQUEST_FLUSHED && phase < CLOSING) {
                // Work flushed before we began closing: the queue pair is in error, because the
                // peer went away (its disconnect event may come later) or because of a fault (a
                // peer's RDMA with a bad rkey, a fatal asynchronous error). As svcrdma: close
                // this connection, and never post into the errored queue pair again, which would
                // flush every repost at once, forever.
                counters.increment(Counter.QUEUE_PAIR_FLUSHES);
                LOG.debug("RPC-over-RDMA connection from {} closes: its queue pair flushed {}", remoteAddress,
                        SendQueue.describe(wc));
                beginClose(false);
            }
            switch (WorkRequestIds.kind(wc.id())) {
                case WorkRequestIds.RECEIVE:
                    onReceiveCompletion(wc);
                    break;
                case WorkRequestIds.SEND:
                    if (!sendQueue.onSendCompletion(wc)) {
                        fail(sendQueue.failure());
                    }
                    break;
                case WorkRequestIds.READ:
                    readScheduler.onReadCompletion(wc);
                    break;
                case WorkRequestIds.WRITE:
                    if (!sendQueue.onWriteCompletion(wc)) {
                        fail(sendQueue.failure());
                    }
                    break;
                default:
                    counters.increment(Counter.POST_FAILURES);
                    break;
            }
        }
        return n;
    }

    private int postReceives() {
        try {
            return receivePool.postReceives(queuePair);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            fail("posting receives failed: " + e.getMessage());
            return 0;
        }
    }

    private void onReceiveCompletion(WorkCompletion wc) {
        ReceiveContext ctx = receivePool.onReceiveCompletion(WorkRequestIds.index(wc.id()));
        if (!wc.isSuccess()) {
            if (wc.status() != CompletionStatus.WORK_REQUEST_FLUSHED) {
                counters.increment(Counter.RECEIVE_ERRORS);
                fail("a receive completed with " + SendQueue.describe(wc));
            }
            receivePool.recycle(ctx);
        } else if (phase >= CLOSING) {
            counters.increment(Counter.RECEIVES_DISCARDED_AT_CLOSE);
            receivePool.recycle(ctx);
        } else {
            dispatcher.onMessage(ctx, wc.byteCount());
        }
    }

    /**
     * fail() - an error forces the connection closed: say why, once per connection, naming the
     * peer (the counters say how often; this line says what happened).
     *
     * @param reason what failed
     */
    public void fail(String reason) {
        if (phase < CLOSING) {
            if (closeReason == null) {
                closeReason = reason;
            }
            LOG.warn("RPC-over-RDMA connection from {} to {} closes: {}", remoteAddress, localAddress, reason);
        }
        beginClose(true);
    }

    /**
     * beginClose() - stop serving: disconnect (every outstanding request flushes), fail queued
     * calls, forget waiting SENDs. The rest happens as the flushes are polled.
     *
     * @param failed true when an error forces the close (counted)
     */
    public void beginClose(boolean failed) {
        sendLock.lock();
        try {
            beginCloseLocked(failed);
        } finally {
            sendLock.unlock();
        }
    }

    private void beginCloseLocked(boolean failed) {
        int was = phase;
        if (was >= CLOSING) {
            return;
        }
        phase = CLOSING;
        lastProgressNanos = loop.now(); // the close's deadline counts from here (see reclaimUnflushed())
        if (closeReason == null) {
            // Not told apart here: the client's disconnect and the transport stopping both arrive as beginClose(false).
            closeReason = closeRequested ? "closed by the server" : "disconnected (the client left, or the transport stopped)";
        }
        if (failed) {
            counters.increment(Counter.CONNECTIONS_FAILED);
        }
        sendQueue.dropWaiting();
        replySender.dropAll();
        dropSubmittedReplies();
        readScheduler.failAll();
        replyStaging.close();
        backchannel.close();
        try {
            connection.disconnect();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
    }

    /**
     * submitReply() - an RPC-layer thread sent a reply: queue it for the completion thread, or
     * drop it (counted) when the connection is closing.
     */
    public void submitReply(ReplyJob job) {
        if (phase >= CLOSING || closeRequested) {
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
        if (phase >= CLOSING) {
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
        if (phase >= CLOSING) {
            loop.repliesInTransit().decrementAndGet();
            job.recycle();
            counters.increment(Counter.REPLIES_DROPPED);
            return true;
        }
        if (workerPostFailure != null) {
            return false;
        }
        replySender.enqueue(job);
        if (replySender.pump() < 0 || !sendQueue.pump()) {
            workerPostFailure = sendQueue.failure();
            loop.wakeup();
        }
        return true;
    }

    /**
     * newReply() - the pending reply of a call about to be handed to the RPC layer: a pooled
     * per-call context holding the call's chunk lists as parsed at receive time.
     */
    public ReplyJob newReply(ParsedHeader header) {
        return replyJobs.acquire().open(header);
    }

    /** @return the transport's pool of buffers for replies larger than a pending reply's own */
    public LargeReplyBuffers largeReplyBuffers() {
        return loop.largeReplyBuffers();
    }

    /** @return the size of a pending reply's {@link ReplyJob#replyBuffer()}: the inline send size */
    public int replyBufferSize() {
        return Math.min(replySizeLimit, config.maxInlineSend());
    }

    /** @return the pooled per-call reply contexts of this connection (tests, statistics) */
    public ReplyJobPool replyJobs() {
        return replyJobs;
    }

    private int takeSubmittedReplies() {
        int n = 0;
        ReplyJob job;
        while ((job = submittedReplies.poll()) != null) {
            replySender.enqueue(job);
            n++;
        }
        return n;
    }

    private void dropSubmittedReplies() {
        ReplyJob job;
        while ((job = submittedReplies.poll()) != null) {
            loop.repliesInTransit().decrementAndGet();
            job.recycle();
            counters.increment(Counter.REPLIES_DROPPED);
        }
    }

    private void tearDown() {
        connection.attach(null);
        connection.close();
        receivePool.forgetPosted();
        closeQuietly(completionQueue);
        receivePool.deregister();
        sendQueue.deregister();
        replyStaging.close();
        phase = CLOSED;
        counters.increment(Counter.CONNECTIONS_CLOSED);
        logLifecycle("closed", closeReason);
    }

    /**
     * logLifecycle() - the operator's line for a connection: INFO when it opened (what was
     * negotiated) and when it closed (why, and what it did), WARN when its connect request was
     * rejected (why). Never per call.
     *
     * @param event "opened", "closed" or "rejected"
     * @param why the reason (closed, rejected), or null
     */
    private void logLifecycle(String event, String why) {
        if ("rejected".equals(event)) {
            LOG.warn("RPC-over-RDMA connection from {} to {} rejected: {}", remoteAddress, localAddress, why);
        } else if ("opened".equals(event)) {
            LOG.info("RPC-over-RDMA connection from {} to {} opened: credits {}, inline receive {} B, inline send {} B "
                    + "(client receives {} B), remote invalidation {}", remoteAddress, localAddress, config.credits(),
                    config.inlineReceiveThreshold(), Math.min(replySizeLimit, config.maxInlineSend()), replySizeLimit,
                    remoteInvalidation ? "on" : "off");
        } else {
            LOG.info("RPC-over-RDMA connection from {} to {} closed: {} ({} calls, {} READs, {} sends)", remoteAddress,
                    localAddress, why, counters.get(Counter.CALLS_DELIVERED), counters.get(Counter.READS),
                    counters.get(Counter.SENDS));
        }
    }

    private void closeQuietly(CompletionQueue cq) {
        if (cq == null) {
            return;
        }
        try {
            cq.close();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
    }

    /**
     * hasDeadline() - whether the loop must wake on its own for this connection. Only the stall
     * and close deadlines ({@link #checkStalled}) are timed, and they run only while requests are
     * outstanding, a READ is in flight, or the connection is not yet or no longer established; a
     * quiet established connection waits for nothing but its peer and its workers, and both wake
     * the loop. On the loop thread.
     */
    public boolean hasDeadline() {
        assert loop.inLoop() : "hasDeadline() off the loop thread";
        return phase != ESTABLISHED || closeRequested || workerPostFailure != null || requestsOutstanding();
    }

    /** @return true while send-queue requests (SENDs, WRITEs, READ chains) or READs await their completions */
    private boolean requestsOutstanding() {
        return sendQueue.outstanding() > 0 || readScheduler.inFlight() > 0;
    }

    /** @return true once closed and every call handed out has been released */
    public boolean isRemovable() {
        return phase == CLOSED && receivePool.held() == 0;
    }

    boolean isClosed() {
        return phase == CLOSED;
    }

    /**
     * returnContext() - a handler released a call (any thread). An inline call's context is
     * recycled and reposted right here when the send lock is free (it holds no READ sink, which
     * the loop's pools own), so the loop is not woken once per call; otherwise it goes back
     * through the loop.
     */
    public void returnContext(ReceiveContext ctx) {
        if (!ctx.hasReadChunks() && phase < CLOSING && sendLock.tryLock()) {
            try {
                if (phase < CLOSING && workerPostFailure == null) {
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

    /** addUsage() - a snapshot of the pools, for leak checks; completion thread only */
    public void addUsage(UsageTally usage) {
        usage.heldReceiveContexts += receivePool.held();
        usage.postedReceives += receivePool.posted();
        usage.sendBuffersInUse += sendQueue.buffersInUse();
        usage.readsInFlight += readScheduler.inFlight();
        usage.sendQueueSlotsInUse += sendQueue.outstanding();
        if (phase < CLOSED) {
            usage.registeredBytes += (long) config.receiveContexts() * config.inlineReceiveThreshold()
                    + (long) config.sendBuffers() * sendQueue.bufferLength();
        }
    }

    /** @return READ sinks this connection holds (its share of the loop's pools in use); loop thread */
    long heldSinks() {
        assert loop.inLoop() : "heldSinks() off the loop thread";
        return readScheduler.heldSinks();
    }

    /** @return reply staging bytes this connection holds */
    long heldStagingBytes() {
        return replyStaging.held();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public boolean isOpen() {
        return phase < CLOSING && !closeRequested;
    }

    @Override
    public int replySizeLimit() {
        return replySizeLimit;
    }

    @Override
    public int receiveSizeLimit() {
        return config.inlineReceiveThreshold();
    }

    @Override
    public boolean remoteInvalidationAllowed() {
        return remoteInvalidation;
    }

    @Override
    public int grantedCredits() {
        return config.credits();
    }

    @Override
    public Backchannel backchannel() {
        return backchannel;
    }

    @Override
    public TransportStatistics statistics() {
        return counters;
    }

    @Override
    public void close() {
        closeRequested = true;
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + remoteAddress + " -> " + localAddress + ", phase=" + phase + "]";
    }
}
