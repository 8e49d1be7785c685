package org.rpcrdma4j.transport.internal.connection;


import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.backchannel.ConnectionBackchannel;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConnectionLifecycle - the phases of one connection and its close: ACCEPTING → ESTABLISHED →
 * CLOSING (disconnected; outstanding work flushes) → CLOSED (queue pair, completion queue and
 * registrations released); why it closes (the first reason given wins), the deadlines on work
 * that does not complete (the stall while it serves, the flushes while it closes), and the
 * operator's lines when it opens, is rejected and closes.
 *
 * <p>Threading: the phase and the close request are read by any thread; everything else is the
 * connection's loop's, and the close runs under the send lock.
 */
final class ConnectionLifecycle {
    /** The phases of a connection, in the order it goes through them. */
    enum Phase {
        /** Accepted, not yet established: nothing is posted but receives. */
        ACCEPTING,
        /** Serving calls. */
        ESTABLISHED,
        /** Disconnected: outstanding work flushes. */
        CLOSING,
        /** Queue pair, completion queue and buffers are released. */
        CLOSED;

        /** @return true once the close began or ended */
        boolean closing() {
            return this == CLOSING || this == CLOSED;
        }
    }

    /** The connection's logger: its lines keep their category. */
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionState.class);

    private final ConnectionLoop loop;
    private final Connection connection;
    private final ConnectionParts parts;
    private final SendSide sendSide;
    private final ConnectionBackchannel backchannel;
    private final Counters counters;
    private final TransportConfig config;
    /** The connection whose life this is: its addresses and negotiated limits, for the log lines. */
    private final ConnectionState owner;
    private volatile Phase phase = Phase.ACCEPTING;
    private volatile boolean closeRequested;
    /** When this connection last saw a completion, or had nothing outstanding (loop clock). */
    private long lastProgressNanos;
    /** Why the connection closes, for its closed line: the first reason given wins. */
    private String closeReason;

    ConnectionLifecycle(ConnectionState owner, ConnectionLoop loop, Connection connection, ConnectionParts parts,
            SendSide sendSide, ConnectionBackchannel backchannel, Counters counters) {
        this.loop = loop;
        this.connection = connection;
        this.parts = parts;
        this.sendSide = sendSide;
        this.backchannel = backchannel;
        this.counters = counters;
        this.config = loop.config();
        this.owner = owner;
    }

    Phase phase() {
        return phase;
    }

    boolean isEstablished() {
        return phase == Phase.ESTABLISHED;
    }

    /** @return true once the close began (disconnected, flushing) or ended */
    boolean isClosing() {
        return phase.closing();
    }

    boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    boolean isCloseRequested() {
        return closeRequested;
    }

    /** requestClose() - the server closes the connection (any thread): the loop begins the close on its next pass. */
    void requestClose() {
        closeRequested = true;
    }

    void onEstablished() {
        if (phase == Phase.ACCEPTING) {
            phase = Phase.ESTABLISHED;
        }
    }

    /** markClosed() - the open failed and what it made is released. */
    void markClosed() {
        phase = Phase.CLOSED;
    }

    /** startProgressClock() - the connection's work may now complete: the stall deadline counts from here. */
    void startProgressClock() {
        lastProgressNanos = loop.now();
    }

    /**
     * finishClose() - a pass while closing: tear down once every posted request flushed, or once
     * the close's deadline passed ({@link #reclaimUnflushed}).
     *
     * @return 1 when torn down, else 0
     */
    int finishClose() {
        if (parts.receivePool.posted() == 0 && !parts.requestsOutstanding()) {
            tearDown();
            return 1;
        } else if (pastStallDeadline(loop.now())) {
            reclaimUnflushed();
            tearDown();
            return 1;
        }
        return 0;
    }

    /**
     * fail() - an error forces the connection closed: say why, once per connection, naming the
     * peer (the counters say how often; this line says what happened). Loop thread.
     *
     * @param reason what failed
     */
    void fail(String reason) {
        assert loop.inLoop() : "fail() off the loop thread";
        if (!phase.closing()) {
            if (closeReason == null) {
                closeReason = reason;
            }
            LOG.warn("RPC-over-RDMA connection from {} to {} closes: {}", owner.remoteAddress(), owner.localAddress(),
                    reason);
        }
        beginClose(true);
    }

    /**
     * beginClose() - stop serving: disconnect (every outstanding request flushes), fail queued
     * calls, forget waiting SENDs. The rest happens as the flushes are polled.
     *
     * @param failed true when an error forces the close (counted)
     */
    void beginClose(boolean failed) {
        sendSide.lock();
        try {
            beginCloseLocked(failed);
        } finally {
            sendSide.unlock();
        }
    }

    private void beginCloseLocked(boolean failed) {
        if (phase.closing()) {
            return;
        }
        phase = Phase.CLOSING;
        lastProgressNanos = loop.now(); // the close's deadline counts from here (see reclaimUnflushed())
        if (closeReason == null) {
            // Not told apart here: the client's disconnect and the transport stopping both arrive as beginClose(false).
            closeReason = closeRequested ? "closed by the server" : "disconnected (the client left, or the transport stopped)";
        }
        if (failed) {
            counters.increment(Counter.CONNECTIONS_FAILED);
        }
        parts.sendQueue.dropWaiting();
        parts.replySender.dropAll();
        sendSide.dropSubmittedReplies();
        parts.readScheduler.failAll();
        parts.replyStaging.close();
        backchannel.close();
        try {
            connection.disconnect();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
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
                + "and reclaiming what they held", owner.remoteAddress(), owner.localAddress(), parts.receivePool.posted(),
                parts.sendQueue.outstanding(), parts.readScheduler.inFlight(), config.stallTimeoutSeconds());
        connection.attach(null);
        connection.close();
        parts.readScheduler.abandonInFlight();
        parts.sendQueue.forgetPosted();
    }

    /**
     * checkStalled() - the deadline on work that does not complete: while this connection has
     * SENDs, WRITEs or READs outstanding, some completion must come within
     * {@code stallTimeoutSeconds}; else the peer stopped (stopped posting receives and retries RNR
     * for ever, or stopped answering READs) and the connection is closed, so the sinks, staging
     * and send slots it holds go back to the other connections. While closing, the same deadline
     * bounds the wait for the flushes, receives included (see {@link #reclaimUnflushed()}).
     */
    void checkStalled(int completed) {
        long now = loop.now();
        if (completed > 0 || (!parts.requestsOutstanding() && (!phase.closing() || parts.receivePool.posted() == 0))) {
            lastProgressNanos = now;
            return;
        }
        if (!phase.closing() && pastStallDeadline(now)) {
            counters.increment(Counter.CONNECTIONS_STALLED);
            fail("no work completed for " + config.stallTimeoutSeconds() + " s with " + parts.sendQueue.outstanding()
                    + " sends and writes and " + parts.readScheduler.inFlight() + " READs outstanding: the peer stopped");
        }
    }

    /** @return true when nothing has completed for {@code stallTimeoutSeconds} (or since the close began) */
    private boolean pastStallDeadline(long now) {
        return now - lastProgressNanos > loop.stallTimeoutNanos();
    }

    private void tearDown() {
        connection.attach(null);
        connection.close();
        parts.release();
        phase = Phase.CLOSED;
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
    void logLifecycle(String event, String why) {
        if ("rejected".equals(event)) {
            LOG.warn("RPC-over-RDMA connection from {} to {} rejected: {}", owner.remoteAddress(), owner.localAddress(),
                    why);
        } else if ("opened".equals(event)) {
            LOG.info("RPC-over-RDMA connection from {} to {} opened: credits {}, inline receive {} B, inline send {} B "
                    + "(client receives {} B), remote invalidation {}", owner.remoteAddress(), owner.localAddress(),
                    config.credits(), config.inlineReceiveThreshold(),
                    owner.replyBufferSize(), owner.replySizeLimit(),
                    owner.remoteInvalidationAllowed() ? "on" : "off");
        } else {
            LOG.info("RPC-over-RDMA connection from {} to {} closed: {} ({} calls, {} READs, {} sends)",
                    owner.remoteAddress(), owner.localAddress(), why, counters.get(Counter.CALLS_DELIVERED), counters.get(Counter.READS),
                    counters.get(Counter.SENDS));
        }
    }
}
