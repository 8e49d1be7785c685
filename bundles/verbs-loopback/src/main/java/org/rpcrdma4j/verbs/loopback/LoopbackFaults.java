package org.rpcrdma4j.verbs.loopback;

import java.util.Objects;

import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;

/**
 * Fault injection for a {@link LoopbackFabric}: fail the Nth executed work request with a chosen
 * status, delay completions by a number of fabric ticks, drop a connection as a lost link would.
 *
 * <p>Threading: safe from any thread (takes the fabric lock).
 */
public final class LoopbackFaults {
    private final LoopbackFabric fabric;
    private int failCountdown;
    private CompletionStatus failStatus;
    private int completionDelayTicks;

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
