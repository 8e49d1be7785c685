package org.rpcrdma4j.verbs.loopback;

import java.util.Objects;

import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Fault injection for a {@link LoopbackFabric}: fail the Nth executed work request with a chosen
 * status, fail the next work request of one kind on one connection, refuse the Nth post
 * synchronously, delay completions by a number of fabric ticks, drop a connection as a lost link
 * would, lose a queue pair's flushes as a faulty device does.
 *
 * <p>Threading: safe from any thread (takes the fabric lock).
 */
public final class LoopbackFaults {
    private final LoopbackFabric fabric;
    private int failCountdown;
    private CompletionStatus failStatus;
    private int completionDelayTicks;
    private WorkKind targetKind;
    private LoopbackConnection targetConnection;
    private CompletionStatus targetStatus;
    private int postCountdown;

    /** The kinds of work request a targeted fault ({@link #failNext}) can hit. */
    public enum WorkKind {
        /** A receive: fails when a SEND arrives for it (the requester sees REMOTE_OPERATION_ERROR). */
        RECV,
        /** SEND and SEND_WITH_INV. */
        SEND,
        /** RDMA WRITE. */
        RDMA_WRITE,
        /** RDMA READ and RDMA_READ_WITH_INV. */
        RDMA_READ,
        /** Fast registration. */
        REG_MR,
        /** Local invalidation. */
        LOCAL_INV;

        static WorkKind of(SendOpcode opcode) {
            switch (opcode) {
                case SEND:
                case SEND_WITH_INV:
                    return SEND;
                case RDMA_WRITE:
                    return RDMA_WRITE;
                case RDMA_READ:
                case RDMA_READ_WITH_INV:
                    return RDMA_READ;
                case REG_MR:
                    return REG_MR;
                default:
                    return LOCAL_INV;
            }
        }
    }

    LoopbackFaults(LoopbackFabric fabric) {
        this.fabric = fabric;
    }

    /**
     * Makes the {@code n}th send-queue work request executed from now on (1 = the next one,
     * counted over the whole fabric, RNR waits not counted) complete with {@code status} instead
     * of executing; its queue pair then goes to the error state and flushes the rest.
     *
     * @param n which request, at least 1
     * @param status the error status to report, not SUCCESS
     */
    public void failWorkRequest(int n, CompletionStatus status) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1: " + n);
        }
        if (Objects.requireNonNull(status, "status") == CompletionStatus.SUCCESS) {
            throw new IllegalArgumentException("an injected failure needs an error status");
        }
        fabric.lock.lock();
        try {
            failCountdown = n;
            failStatus = status;
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Makes the next work request of {@code kind} that {@code connection}'s queue pair executes
     * (for {@link WorkKind#RECV}: the next of its receives a SEND arrives for) complete with
     * {@code status} instead of executing; the queue pair then goes to the error state and
     * flushes the rest, as on hardware. A failed receive fails the SEND that arrived for it with
     * REMOTE_OPERATION_ERROR (the responder's NAK). One fault at a time: a new call replaces a
     * fault not yet hit.
     *
     * @param kind the kind of request to fail
     * @param connection the end whose queue pair executes (or receives) the request; the server's
     *        end of a client's connection is {@link #remoteEnd(Connection)}
     * @param status the error status to report, not SUCCESS
     */
    public void failNext(WorkKind kind, Connection connection, CompletionStatus status) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(connection, "connection");
        if (Objects.requireNonNull(status, "status") == CompletionStatus.SUCCESS) {
            throw new IllegalArgumentException("an injected failure needs an error status");
        }
        fabric.lock.lock();
        try {
            targetKind = kind;
            targetConnection = (LoopbackConnection) connection;
            targetStatus = status;
        } finally {
            fabric.lock.unlock();
        }
    }

    /** @return true while a fault set by {@link #failNext} has not hit its request yet */
    public boolean targetedFaultPending() {
        fabric.lock.lock();
        try {
            return targetStatus != null;
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * @param connection a connection of this fabric
     * @return the other end of it (for a client's connection, the server's accepted one), or null
     *         when it has none (yet, or any more)
     */
    public Connection remoteEnd(Connection connection) {
        fabric.lock.lock();
        try {
            return ((LoopbackConnection) connection).peerLocked();
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Makes the {@code n}th send-queue work request posted from now on (1 = the next one, counted
     * over the whole fabric, each request of a chain counting) be refused synchronously, as a
     * provider refuses a post it cannot queue: {@code postSend} throws a {@link VerbsException}
     * (ENOMEM) whose {@link VerbsException#failedIndex()} names it; the requests of its chain
     * before it stay posted and execute, the rest are not posted.
     *
     * @param n which request, at least 1
     */
    public void failPost(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1: " + n);
        }
        fabric.lock.lock();
        try {
            postCountdown = n;
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: throws when the request about to be posted is the one to refuse. */
    void checkPost(int index) throws VerbsException {
        if (postCountdown > 0 && --postCountdown == 0) {
            throw new VerbsException("injected post failure", Errno.ENOMEM, index);
        }
    }

    /** Under the fabric lock: the status to fail {@code qp}'s request of {@code kind} with, or null. */
    CompletionStatus targeted(LoopbackQueuePair qp, WorkKind kind) {
        if (targetStatus == null || kind != targetKind || targetConnection.queuePairLocked() != qp) {
            return null;
        }
        CompletionStatus status = targetStatus;
        targetStatus = null;
        targetConnection = null;
        targetKind = null;
        return status;
    }

    /**
     * Delays every completion added from now on: it becomes visible to polls only {@code ticks}
     * fabric ticks later (one tick per {@link LoopbackFabric#step()}; in threaded mode the fabric
     * thread keeps ticking while completions are held back).
     *
     * @param ticks the delay, 0 to stop delaying
     */
    public void delayCompletions(int ticks) {
        if (ticks < 0) {
            throw new IllegalArgumentException("ticks must not be negative: " + ticks);
        }
        fabric.lock.lock();
        try {
            completionDelayTicks = ticks;
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Drops a connection as a lost link would: on each side the oldest unexecuted send completes
     * with TRANSPORT_RETRY_EXCEEDED, both queue pairs go to the error state (flushing the rest),
     * and both sides get DISCONNECTED.
     *
     * @param connection a connection of this fabric, either side
     */
    public void dropConnection(Connection connection) {
        fabric.lock.lock();
        try {
            ((LoopbackConnection) connection).dropLocked();
            fabric.workPosted();
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Makes a connection's queue pair lose its flushes, as Soft-iWARP (siw) of Linux 6.1 does for
     * a user queue pair: once the queue pair is in the error state, the requests still outstanding
     * and those posted afterwards complete neither as flushed nor otherwise; they stay outstanding
     * until the queue pair is destroyed (a receive left unflushed after a TERMINATE, an RDMA READ
     * posted after it that never completes). Errors that
     * end a request before the queue pair fails (the fault that fails it) still complete.
     *
     * @param connection a connection of this fabric, either side, with a queue pair
     */
    public void loseFlushes(Connection connection) {
        fabric.lock.lock();
        try {
            LoopbackQueuePair qp = ((LoopbackConnection) Objects.requireNonNull(connection, "connection")).queuePairLocked();
            if (qp == null) {
                throw new IllegalStateException("the connection has no queue pair: " + connection);
            }
            qp.loseFlushes();
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Fails a connection's queue pair as a device's fatal asynchronous event would
     * (IBV_EVENT_QP_FATAL): the queue pair goes to the error state, flushing its outstanding
     * requests, and its manager delivers QUEUE_PAIR_FATAL with status 1 (the ibv_event_type),
     * once; the peer sees nothing until this side disconnects or closes. Does nothing unless the
     * connection is established with a working queue pair.
     *
     * @param connection a connection of this fabric, either side
     */
    public void failQueuePair(Connection connection) {
        fabric.lock.lock();
        try {
            ((LoopbackConnection) connection).failQueuePairLocked();
            fabric.workPosted();
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock: the status to fail the request about to execute with, or null. */
    CompletionStatus nextExecution() {
        if (failCountdown == 0 || --failCountdown > 0) {
            return null;
        }
        CompletionStatus status = failStatus;
        failStatus = null;
        return status;
    }

    /** Under the fabric lock. */
    int completionDelayTicks() {
        return completionDelayTicks;
    }
}
