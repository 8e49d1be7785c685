package org.rpcrdma4j.transport.internal.connection;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaCm;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReplyLatency;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.internal.common.BoundedPool;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.PostOutcome;
import org.rpcrdma4j.transport.internal.backchannel.ConnectionBackchannel;
import org.rpcrdma4j.transport.internal.common.UsageTally;
import org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivingConnection;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.transport.internal.sendto.ReplyJob;
import org.rpcrdma4j.transport.internal.sendto.ReplyConnection;
import org.rpcrdma4j.transport.internal.sendto.ReplyStaging;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * ConnectionState - one accepted connection: its completion queue, receive pool, send queue and
 * READ scheduler, the receive path that decodes each message, and its orderly close.
 *
 * <p>What each received message means is the {@link MessageDispatcher}'s business; its
 * {@link CompletionSorter} hands each completion to its part, and its {@link SendSide} holds the
 * send lock the loop and the workers share.
 *
 * <p>Phases ({@link ConnectionLifecycle}): ACCEPTING → ESTABLISHED → CLOSING (disconnected;
 * outstanding work flushes) → CLOSED (queue pair, completion queue and registrations released) →
 * removed once every call handed to the handler has been released. Every resource
 * ({@link ConnectionParts}) has this one owner and is released once, on every path
 * (CVE-2026-93224 class: a failed accept releases exactly what it set up).
 *
 * <p>Threading: confined to its completion loop, except the {@link RdmaConnection} getters,
 * {@link #close()}, {@link #returnContext} and {@link #submitReply} (any thread). The send side
 * (send queue, reply sender, READ scheduler, back-channel posts) is guarded by the send lock
 * ({@link SendSide}) the loop holds for each pass: a worker that finds it free posts its reply
 * itself (one thread hand-off per call, as svc_rdma_sendto runs on the nfsd thread), else queues
 * it for the loop. Nobody waits for it: a loop that finds a worker posting defers its pass over
 * this connection until the worker lets go (and wakes it); only the close takes it blocking.
 */
public final class ConnectionState implements ReplyConnection, ReceivingConnection {

    private final ConnectionLoop loop;
    private final Connection connection;
    private final DeviceResources device;
    private final Counters counters;
    private final TransportConfig config;
    private final InetSocketAddress remoteAddress;
    private final InetSocketAddress localAddress;
    private final int replySizeLimit;
    private final boolean remoteInvalidation;
    private final ConnectionBackchannel backchannel;
    /** The connection's parts, made at its open. */
    private final ConnectionParts parts;
    /**
     * The per-call reply contexts: one per call whose reply is open, so at most one per receive
     * context (a handler that released its calls early gets contexts beyond the pool).
     */
    private final BoundedPool<ReplyJob> replyJobs;
    /** Its phases, its close and the close's deadlines. */
    private final ConnectionLifecycle lifecycle;
    /** The send lock and what the workers post under it. */
    private final SendSide sendSide;
    private boolean completionQueueArmed;

    public ConnectionState(ConnectionLoop loop, Connection connection, DeviceResources device, ConnectionPrivateData peer) {
        this.loop = loop;
        this.connection = connection;
        this.device = device;
        this.config = loop.config();
        // Single-writer counts (Counters#addOwned) are made under the send lock: a pass of the
        // loop, or a worker posting its reply.
        this.sendSide = new SendSide(this, loop);
        this.counters = sendSide.counters();
        this.parts = new ConnectionParts(counters);
        try {
            this.remoteAddress = connection.remoteAddress();
            this.localAddress = connection.localAddress();
            this.replySizeLimit = peer != null ? peer.maxReceiveSize() : RpcRdma.DEFAULT_INLINE_THRESHOLD;
            // Send With Invalidate (RFC 8797) only when the client asked for it and this device can
            // post it (svcrdma: sc_snd_w_inv needs IB_DEVICE_MEM_MGT_EXTENSIONS as well).
            this.remoteInvalidation = peer != null && peer.remoteInvalidate() && device.device().capabilities().remoteInvalidation();
            this.replyJobs = new BoundedPool<>(config.receiveContexts(), home -> new ReplyJob(this, home, config.limits()));
            this.backchannel = new ConnectionBackchannel(this, loop, counters, config.backchannelCredits(),
                    replyBufferSize());
        } catch (RuntimeException | Error e) {
            retireCounters();
            throw e;
        }
        this.lifecycle = new ConnectionLifecycle(this, loop, connection, parts, sendSide, backchannel, counters);
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
            parts.wire(this, loop, connection, device, config, sizing, replyBufferSize(),
                    backchannel, sendSide);
            parts.receivePool.postReceives(parts.queuePair);
            connection.attach(this);
            lifecycle.startProgressClock();
            connection.accept(acceptPrivateData());
        } catch (VerbsException | RuntimeException e) {
            releaseAfterFailedOpen();
            lifecycle.logLifecycle("rejected", e.getMessage());
            throw e;
        }
        lifecycle.logLifecycle("opened", null);
    }

    /**
     * rejectAndClose() - answer a connect request we cannot serve and release its connection.
     * A request already answered (accept failed half-way) cannot be rejected: only the close
     * matters then, so a refused reject is not counted.
     */
    public static void rejectAndClose(Connection connection) {
        try {
            connection.reject(ByteBuffer.allocate(0));
        } catch (VerbsException | RuntimeException e) {
            // Already accepted or gone: closing below releases it either way.
        }
        connection.close();
    }

    private ByteBuffer acceptPrivateData() {
        ByteBuffer data = ByteBuffer.allocate(RpcRdmaCm.PRIVATE_DATA_BYTES);
        new ConnectionPrivateData(replyBufferSize(), config.inlineReceiveThreshold(), false)
                .encode(data, 0);
        return data;
    }

    private void releaseAfterFailedOpen() {
        retireCounters();
        connection.attach(null);
        rejectAndClose(connection);
        parts.releaseHalfMade();
        lifecycle.markClosed();
    }

    @Override
    public Counters counters() {
        return counters;
    }

    /**
     * retireCounters() - the connection is gone (removed, or its open failed): the transport keeps
     * its counts and stops summing its counters. Takes the send lock, as their writer.
     */
    public void retireCounters() {
        sendSide.lock();
        try {
            counters.retire();
        } finally {
            sendSide.unlock();
        }
    }

    /** @return the completion loop that owns this connection */
    public ConnectionLoop loop() {
        return loop;
    }

    /**
     * armCompletionQueue() - before the loop sleeps: ask for a notification of the next completion
     * unless one is already requested. Loop thread only.
     */
    public void armCompletionQueue() throws VerbsException {
        assert loop.inLoop() : "armCompletionQueue() off the loop thread";
        if (!completionQueueArmed && !lifecycle.isClosed()) {
            parts.completionQueue.requestNotification();
            completionQueueArmed = true;
        }
    }

    /** @return true when {@code cq} is this connection's queue (its one-shot arm is now used up) */
    public boolean onCompletionQueueFired(CompletionQueue cq) {
        if (cq != parts.completionQueue) {
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
                lifecycle.onEstablished();
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

    /**
     * doWork() - one pass: take back released calls, handle completions, post READs, SENDs and
     * receives, and finish a close when everything has flushed.
     *
     * @param completions the engine's reusable completion array
     * @return work done (completions handled, calls returned, requests posted)
     */
    public int doWork(WorkCompletion[] completions) {
        assert loop.inLoop() : "doWork() off the loop thread";
        if (!sendSide.lockForPass()) {
            return 0;
        }
        try {
            return doWorkLocked(completions);
        } finally {
            sendSide.unlockAfterPass();
        }
    }

    /** @return the connection's send side (tests) */
    SendSide sendSide() {
        return sendSide;
    }

    /** underSendLock() - see {@link SendSide#underSendLock} (tests). */
    void underSendLock(Runnable action) {
        sendSide.underSendLock(action);
    }

    private int doWorkLocked(WorkCompletion[] completions) {
        int work = parts.receivePool.drainReturned();
        String failure = sendSide.workerPostFailure();
        if (failure != null && !lifecycle.isClosing()) {
            fail(failure);
        }
        if (lifecycle.isCloseRequested() && !lifecycle.isClosing()) {
            beginClose(false);
        }
        if (lifecycle.isClosed()) {
            return work;
        }
        int completed = parts.sorter.pollCompletions(completions);
        work += completed;
        lifecycle.checkStalled(completed);
        work += sendSide.takeSubmittedReplies();
        work += parts.readScheduler.pump();
        if (!parts.sendQueue.pump()) {
            fail(parts.sendQueue.failure());
        }
        if (!lifecycle.isClosing()) {
            if (parts.replySender.pump() == PostOutcome.FAILED) {
                fail(parts.sendQueue.failure());
            } else {
                work += parts.replySender.pumped();
            }
            if (backchannel.pump(parts.sendQueue) == PostOutcome.FAILED) {
                fail(parts.sendQueue.failure());
            } else {
                work += backchannel.pumped();
            }
        }
        if (!lifecycle.isClosing()) {
            work += postReceives();
        } else {
            work += lifecycle.finishClose();
        }
        return work;
    }

    private int postReceives() {
        try {
            return parts.receivePool.postReceives(parts.queuePair);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            fail("posting receives failed: " + e.getMessage());
            return 0;
        }
    }

    /**
     * fail() - an error forces the connection closed: say why, once per connection, naming the
     * peer ({@link ConnectionLifecycle#fail}).
     *
     * @param reason what failed
     */
    @Override
    public void fail(String reason) {
        lifecycle.fail(reason);
    }

    /**
     * beginClose() - stop serving: disconnect (every outstanding request flushes), fail queued
     * calls, forget waiting SENDs ({@link ConnectionLifecycle#beginClose}). The rest happens as the
     * flushes are polled.
     *
     * @param failed true when an error forces the close (counted)
     */
    public void beginClose(boolean failed) {
        lifecycle.beginClose(failed);
    }

    /**
     * submitReply() - an RPC-layer thread sent a reply: post it, or queue it for the completion
     * thread, or drop it (counted) when the connection is closing ({@link SendSide#submitReply}).
     */
    @Override
    public void submitReply(ReplyJob job) {
        sendSide.submitReply(job);
    }

    /**
     * newReply() - the pending reply of a call about to be handed to the RPC layer: a pooled
     * per-call context holding the call's chunk lists as parsed at receive time.
     */
    @Override
    public ReplyJob newReply(ParsedHeader header, long receivedAt) {
        return replyJobs.acquire().open(header, receivedAt);
    }

    /** @return the transport's pool of buffers for replies larger than a pending reply's own */
    @Override
    public LargeReplyBuffers largeReplyBuffers() {
        return loop.largeReplyBuffers();
    }

    @Override
    public ReplyStaging replyStaging() {
        return parts.replyStaging;
    }

    /** @return the inline send size (client's receive size, at most maxInlineSend): replies, backward calls, private data */
    @Override
    public int replyBufferSize() {
        return Math.min(replySizeLimit, config.maxInlineSend());
    }

    /** @return the pooled per-call reply contexts of this connection (tests, statistics) */
    public BoundedPool<ReplyJob> replyJobs() {
        return replyJobs;
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
        return !lifecycle.isEstablished() || lifecycle.isCloseRequested() || sendSide.workerPostFailure() != null
                || parts.requestsOutstanding();
    }

    /** @return true once closed and every call handed out has been released */
    public boolean isRemovable() {
        return lifecycle.isClosed() && parts.receivePool.held() == 0;
    }

    boolean isClosed() {
        return lifecycle.isClosed();
    }

    /** @return true once the close began (disconnected, flushing) or ended; any thread */
    boolean isClosing() {
        return lifecycle.isClosing();
    }

    /** @return true once {@link #close()} was called; any thread */
    boolean isCloseRequested() {
        return lifecycle.isCloseRequested();
    }

    @Override
    public boolean runOnLoop(Runnable task, Executor elsewhere) {
        return loop.runOnLoop(task, elsewhere);
    }

    /**
     * returnContext() - a handler released a call (any thread). An inline call's context is
     * recycled and reposted right here when the send lock is free (it holds no READ sink, which
     * the loop's pools own), so the loop is not woken once per call; otherwise it goes back
     * through the loop.
     */
    @Override
    public void returnContext(ReceiveContext ctx) {
        sendSide.returnContext(ctx);
    }

    /** addUsage() - a snapshot of the pools, for leak checks; on its loop's thread, or once the loop has stopped */
    public void addUsage(UsageTally usage) {
        usage.heldReceiveContexts += parts.receivePool.held();
        usage.postedReceives += parts.receivePool.posted();
        usage.sendBuffersInUse += parts.sendQueue.buffersInUse();
        usage.readsInFlight += parts.readScheduler.inFlight();
        usage.sendQueueSlotsInUse += parts.sendQueue.outstanding();
        if (!lifecycle.isClosed()) {
            usage.registeredBytes += (long) config.receiveContexts() * config.inlineReceiveThreshold()
                    + parts.sendQueue.registeredBytes();
        }
    }

    /** @return READ sinks this connection holds (its share of the loop's pools in use); loop thread */
    long heldSinks() {
        assert loop.inLoop() : "heldSinks() off the loop thread";
        return parts.readScheduler.heldSinks();
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
        return !lifecycle.isClosing() && !lifecycle.isCloseRequested();
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
    public ReplyLatency replyLatency() {
        return sendSide.replyLatency().snapshot();
    }

    @Override
    public void close() {
        lifecycle.requestClose();
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + remoteAddress + " -> " + localAddress + ", phase=" + lifecycle.phase() + "]";
    }
}
