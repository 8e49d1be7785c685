package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A completion channel over libdisni's wait set: one eventfd for {@link #wakeup()} and one
 * ibv_comp_channel per device (created when the first queue of that device is created here),
 * slept on together in one poll(2). Each queue's cq_context is its cookie, an index into
 * {@link #queues} plus one, so an event maps back to its queue without a lookup structure or an
 * allocation.
 *
 * <p>Waits are sliced ({@link #WAIT_SLICE_MILLIS}) only so that a thread interrupt is noticed:
 * poll(2) does not return for one. A {@link #close()} ends a wait at once through the eventfd.
 *
 * <p>Life cycle of the native set, which no thread may touch after it is freed: {@link #await}
 * runs under {@link #awaitLock} and checks {@link #closed} there; {@link #wakeup()} counts itself
 * in {@link #wakers} (the count turns negative once the set is closing, and wakers then stay out);
 * {@link #close()} marks the channel closed, rings the eventfd, takes the await lock, closes the
 * wakers' door and waits for those inside (one write(2) each) before freeing anything.
 *
 * <p>Lock order: {@link #awaitLock}, then this object's monitor (queue table, channels, state); a
 * queue's own lock is never taken under either.
 */
final class DisniCompletionChannel implements CompletionChannel {
    /**
     * Longest single sleep in native code, so that an interrupt of the waiting thread is noticed
     * within a second; completions and wake-ups end a sleep at once, so an idle loop wakes only
     * this often (once a second, like its own housekeeping).
     */
    static final int WAIT_SLICE_MILLIS = 1000;

    private final long waitSet;
    private final ReentrantLock awaitLock = new ReentrantLock();
    /** Wakers inside the native wake; {@link Integer#MIN_VALUE} added once closing (door shut). */
    private final AtomicInteger wakers = new AtomicInteger();
    /** 1 while a wake-up was rung and not yet consumed by an await: further rings skip the system call. */
    private final AtomicInteger wakePending = new AtomicInteger();
    /** Cookies of one await (the loop thread only). */
    private final int[] cookies = new int[DisniExtensions.WAIT_SET_MAX_EVENTS];
    private final Map<DisniDevice, IbvCompChannel> channels = new IdentityHashMap<>();
    private DisniCompletionQueue[] queues = new DisniCompletionQueue[16];
    private int[] freeSlots = new int[16];
    private int freeCount;
    private int nextSlot;
    private int openQueues;
    /** The current await round, to report each queue at most once per await (the loop thread only). */
    private long round;
    private volatile boolean closed;

    private DisniCompletionChannel(long waitSet) {
        this.waitSet = waitSet;
    }

    /** Opens the wait set (its eventfd); no device channel yet. */
    static DisniCompletionChannel open() throws VerbsException {
        try {
            return new DisniCompletionChannel(DisniExtensions.openWaitSet());
        } catch (IOException e) {
            throw DisniErrors.toVerbs("opening a completion channel", e);
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(VerbsDevice device, int capacity) throws VerbsException {
        if (!(device instanceof DisniDevice)) {
            throw new VerbsException("not a device of the DiSNI provider: " + device, Errno.EINVAL);
        }
        DisniDevice disni = (DisniDevice) device;
        int max = disni.capabilities().maxCompletionQueueEntries();
        if (capacity < 1 || capacity > max) {
            throw new VerbsException("completion queue capacity must be within 1.." + max + ": " + capacity, Errno.EINVAL);
        }
        synchronized (this) {
            checkOpen();
            IbvCompChannel channel = channelOf(disni);
            int slot = takeSlot();
            DisniCompletionQueue queue;
            try {
                queue = DisniCompletionQueue.createOn(disni, channel, capacity, this, slot + 1);
            } catch (VerbsException | RuntimeException e) {
                returnSlot(slot);
                throw e;
            }
            queues[slot] = queue;
            openQueues++;
            return queue;
        }
    }

    /** The device's ibv_comp_channel, created and added to the wait set on first use. Holds the monitor. */
    private IbvCompChannel channelOf(DisniDevice device) throws VerbsException {
        IbvCompChannel channel = channels.get(device);
        if (channel != null) {
            return channel;
        }
        try {
            channel = device.context().createCompChannel();
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_create_comp_channel on " + device.name(), e);
        }
        try {
            DisniExtensions.addToWaitSet(waitSet, ((NatObject) channel).getObjId());
        } catch (IOException e) {
            destroyQuietly(channel);
            throw DisniErrors.toVerbs("watching the completion channel of " + device.name(), e);
        }
        channels.put(device, channel);
        return channel;
    }

    private int takeSlot() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (nextSlot == queues.length) {
            queues = Arrays.copyOf(queues, queues.length * 2);
        }
        return nextSlot++;
    }

    private void returnSlot(int slot) {
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeSlots.length * 2);
        }
        freeSlots[freeCount++] = slot;
    }

    /** A queue of this channel was closed: forget it, so that its cookie can be reused. */
    synchronized void released(DisniCompletionQueue queue) {
        int slot = queue.cookie() - 1;
        if (slot >= 0 && slot < queues.length && queues[slot] == queue) {
            queues[slot] = null;
            returnSlot(slot);
            openQueues--;
        }
    }

    /**
     * Sleeps in slices of at most {@link #WAIT_SLICE_MILLIS} until a queue's notification or a
     * wake-up arrives, the timeout passes, or the channel is closed (then returns 0). Allocates
     * nothing.
     */
    @Override
    public int await(CompletionQueue[] fired, long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (fired.length == 0) {
            throw new IllegalArgumentException("fired must hold at least one queue");
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        checkOpen();
        int max = Math.min(fired.length, cookies.length);
        long timeoutNanos = unit.toNanos(timeout);
        long start = System.nanoTime();
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = timeoutNanos - (System.nanoTime() - start);
            int slice = left <= 0 ? 0 : (int) Math.min(WAIT_SLICE_MILLIS, (left + 999_999) / 1_000_000);
            int result;
            int n = 0;
            awaitLock.lock();
            try {
                if (closed) {
                    return 0; // closed while waiting: the waiter returns (the contract of close)
                }
                result = DisniExtensions.awaitWaitSet(waitSet, slice, cookies, max);
                // After the native call, consumed or not: a ring skipped since was skipped because
                // of a write that is either still in the eventfd or consumed just now (see wakeup()).
                wakePending.set(0);
                int events = result & (DisniExtensions.WAIT_SET_WOKEN - 1);
                if (result > 0 && events > 0) {
                    n = mapFired(events, fired); // cookies belong to this await until the lock is released
                }
            } finally {
                awaitLock.unlock();
            }
            if (result < 0) {
                throw new VerbsException("waiting on the completion channel (poll, ibv_get_cq_event)", -result);
            }
            if (n > 0) {
                return n;
            }
            if ((result & DisniExtensions.WAIT_SET_WOKEN) != 0 || slice == 0 || left <= 0) {
                return 0;
            }
        }
    }

    /** Maps the await's cookies to queues, each at most once; cookies of queues closed meanwhile are dropped. */
    private synchronized int mapFired(int events, CompletionQueue[] fired) {
        long current = ++round;
        int n = 0;
        for (int i = 0; i < events; i++) {
            int slot = cookies[i] - 1;
            DisniCompletionQueue queue = slot >= 0 && slot < queues.length ? queues[slot] : null;
            if (queue != null && queue.firedRound != current) {
                queue.firedRound = current;
                fired[n++] = queue;
            }
        }
        return n;
    }

    /**
     * Rings the eventfd unless a ring is already pending; after {@link #close()} does nothing.
     * Never blocks (one write(2) at most).
     *
     * <p>Why skipping is safe: a ring is skipped only while {@link #wakePending} is 1, set by a
     * ring whose write either is still in the eventfd (the next await returns at once) or was
     * consumed by an await that resets the flag when it returns, before the loop drains again; so
     * whatever the skipping thread handed in before ringing is seen by that drain.
     */
    @Override
    public void wakeup() {
        if (wakePending.get() != 0 || !wakePending.compareAndSet(0, 1)) {
            return;
        }
        if (wakers.getAndIncrement() < 0) {
            wakers.getAndDecrement(); // closing: the set may be freed
            return;
        }
        try {
            DisniExtensions.wakeWaitSet(waitSet); // fails only for a broken eventfd; an await would report that
        } finally {
            wakers.getAndDecrement();
        }
    }

    /**
     * Closes the channel: EBUSY while a queue of it is open; otherwise ends an await in progress,
     * waits for wakers inside their write(2), destroys the device channels and frees the wait set.
     */
    @Override
    public void close() throws VerbsException {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (openQueues > 0) {
                throw new VerbsException("completion channel still has " + openQueues + " open completion queues", Errno.EBUSY);
            }
            closed = true;
        }
        DisniExtensions.wakeWaitSet(waitSet); // an await in poll(2) returns and sees closed
        List<IbvCompChannel> toDestroy;
        awaitLock.lock();
        try {
            wakers.getAndAdd(Integer.MIN_VALUE);
            while (wakers.get() != Integer.MIN_VALUE) {
                Thread.onSpinWait(); // a waker is inside one non-blocking write(2)
            }
            synchronized (this) {
                toDestroy = new ArrayList<>(channels.values());
                channels.clear();
            }
            DisniExtensions.closeWaitSet(waitSet);
        } finally {
            awaitLock.unlock();
        }
        VerbsException failure = null;
        for (IbvCompChannel channel : toDestroy) {
            try {
                int ret = channel.destroyCompChannel();
                if (ret != 0 && failure == null) {
                    failure = new VerbsException("ibv_destroy_comp_channel", -ret);
                }
            } catch (IOException e) {
                if (failure == null) {
                    failure = DisniErrors.toVerbs("ibv_destroy_comp_channel", e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** @return whether a thread is inside an await's native wait (tests and diagnostics) */
    boolean isAwaiting() {
        return awaitLock.isLocked();
    }

    /** @return the native wait set's handle (tests) */
    long waitSetHandle() {
        return waitSet;
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("completion channel is closed", Errno.EBADF);
        }
    }

    private static void destroyQuietly(IbvCompChannel channel) {
        try {
            channel.destroyCompChannel();
        } catch (IOException ignored) {
            // the failure that led here is the error to report
        }
    }

    @Override
    public synchronized String toString() {
        return "DisniCompletionChannel[" + (closed ? "closed" : channels.size() + " devices, " + openQueues + " queues") + "]";
    }
}
