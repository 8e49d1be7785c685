package org.rpcrdma4j.verbs.loopback;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A loopback completion queue: a preallocated ring of {@link CompletionEntry}s. Adding to a full
 * ring marks the queue overflowed (the completion is lost, as on hardware) and every later poll
 * fails with EOVERFLOW; the queue pair that produced the lost completion goes to the error state.
 *
 * <p>Threading: all state under the fabric lock; {@link #awaitNotification} waits on a condition
 * of that lock.
 */
final class LoopbackCompletionQueue implements CompletionQueue {
    private final LoopbackDevice device;
    private final LoopbackFabric fabric;
    private final CompletionEntry[] ring;
    private final Condition notification;
    /** The shared channel this queue reports to when armed, or null for its own waiter. */
    private final LoopbackCompletionChannel channel;
    private int head;
    private int count;
    private boolean armed;
    private boolean notificationPending;
    private boolean overflowed;
    private boolean closed;
    private int queuePairs;
    private long latestVisibleAtTick;

    LoopbackCompletionQueue(LoopbackDevice device, int capacity) {
        this(device, capacity, null);
    }

    LoopbackCompletionQueue(LoopbackDevice device, int capacity, LoopbackCompletionChannel channel) {
        this.device = device;
        this.channel = channel;
        this.fabric = device.fabric;
        this.ring = new CompletionEntry[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new CompletionEntry();
        }
        this.notification = fabric.lock.newCondition();
    }

    @Override
    public VerbsDevice device() {
        return device;
    }

    @Override
    public int capacity() {
        return ring.length;
    }

    @Override
    public int poll(WorkCompletion[] completions, int max) throws VerbsException {
        fabric.lock.lock();
        try {
            checkUsable();
            int limit = Math.min(max, completions.length);
            long now = fabric.tick();
            int polled = 0;
            while (polled < limit && count > 0 && ring[head].visibleAtTick <= now) {
                CompletionEntry entry = ring[head];
                entry.copyTo(completions[polled++]);
                entry.queuePair.retire(entry.retiredSends, entry.retiredReceives);
                entry.clear();
                head = wrap(head + 1, ring.length);
                count--;
            }
            return polled;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void requestNotification() throws VerbsException {
        fabric.lock.lock();
        try {
            checkOpen();
            armed = true;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        long remaining = unit.toNanos(timeout);
        fabric.lock.lock();
        try {
            if (channel != null) {
                throw new VerbsException("this completion queue reports to its completion channel: await the channel",
                        Errno.EINVAL);
            }
            while (!notificationPending && !closed && !overflowed) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = notification.awaitNanos(remaining);
            }
            checkOpen();
            boolean notified = notificationPending || overflowed;
            notificationPending = false;
            return notified;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void close() throws VerbsException {
        fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (queuePairs > 0) {
                throw new VerbsException("completion queue still used by " + queuePairs + " queue pairs", Errno.EBUSY);
            }
            closed = true;
            for (int i = 0; i < ring.length; i++) {
                ring[i].clear();
            }
            count = 0;
            fabric.removeCompletionQueue(this);
            if (channel != null) {
                channel.onQueueClosed(this);
            }
            notification.signalAll();
        } finally {
            fabric.lock.unlock();
        }
    }

    /**
     * Under the fabric lock: adds a completion, visible after the fabric's configured delay.
     *
     * @return false when the queue overflowed (or is closed) and the completion was lost
     */
    boolean add(LoopbackQueuePair queuePair, long id, CompletionStatus status, CompletionOpcode opcode, int byteCount,
            int retiredSends, int retiredReceives) {
        return add(queuePair, id, status, opcode, byteCount, retiredSends, retiredReceives, false, 0);
    }

    /** Under the fabric lock: as {@link #add(LoopbackQueuePair, long, CompletionStatus, CompletionOpcode, int, int, int)}, for a receive that invalidated a key. */
    boolean add(LoopbackQueuePair queuePair, long id, CompletionStatus status, CompletionOpcode opcode, int byteCount,
            int retiredSends, int retiredReceives, boolean invalidated, int invalidatedKey) {
        if (closed || overflowed) {
            return false;
        }
        if (count == ring.length) {
            overflowed = true;
            notification.signalAll();
            if (armed && channel != null) {
                armed = false;
                channel.fire(this);
            }
            return false;
        }
        CompletionEntry entry = ring[wrap(head + count, ring.length)];
        entry.id = id;
        entry.status = status;
        entry.opcode = opcode;
        entry.byteCount = byteCount;
        entry.queuePair = queuePair;
        entry.retiredSends = retiredSends;
        entry.retiredReceives = retiredReceives;
        entry.invalidated = invalidated;
        entry.invalidatedKey = invalidatedKey;
        entry.visibleAtTick = fabric.tick() + fabric.faults.completionDelayTicks();
        latestVisibleAtTick = Math.max(latestVisibleAtTick, entry.visibleAtTick);
        count++;
        onTick(fabric.tick());
        return true;
    }

    /**
     * Under the fabric lock, after each tick: wakes an armed waiter once an entry is visible.
     *
     * @return true while entries wait for their delay to pass, and on the tick that releases them
     */
    boolean onTick(long now) {
        if (count == 0) {
            return false;
        }
        boolean visible = ring[head].visibleAtTick <= now;
        if (visible && armed) {
            armed = false;
            if (channel != null) {
                channel.fire(this);
            } else {
                notificationPending = true;
                notification.signalAll();
            }
        }
        return latestVisibleAtTick >= now;
    }

    /** Under the fabric lock: a queue pair now completes into this queue. */
    void attach() throws VerbsException {
        checkOpen();
        queuePairs++;
    }

    /** Under the fabric lock: a queue pair using this queue was destroyed. */
    void detach() {
        queuePairs--;
    }

    boolean isOverflowed() {
        return overflowed;
    }

    private void checkUsable() throws VerbsException {
        checkOpen();
        if (overflowed) {
            throw new VerbsException("completion queue overflowed: completions were lost", Errno.EOVERFLOW);
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("completion queue is closed", Errno.EBADF);
        }
    }

    /** Ring index arithmetic without a division: {@code index} is below {@code 2 * length}. */
    private static int wrap(int index, int length) {
        return index < length ? index : index - length;
    }
}
