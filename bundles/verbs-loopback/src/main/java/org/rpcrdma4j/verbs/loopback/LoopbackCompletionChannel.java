package org.rpcrdma4j.verbs.loopback;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A loopback completion channel: armed queues created on it report here instead of waking a
 * waiter of their own, the way the queues of one ibv_comp_channel do; the wake-up is a sticky
 * flag plus an unpark, the loopback's eventfd.
 *
 * <p>Threading: {@link #fire} and the fired list under the fabric lock (the waiter unparked as
 * the lock is let go, so it does not wake into the held lock); {@link #await} on the one
 * loop thread, parking outside the lock (a fire or wake-up between its drain and its park leaves
 * the thread's permit, so the park returns at once); {@link #wakeup()} from any thread, lock-free.
 */
final class LoopbackCompletionChannel implements CompletionChannel {
    private final LoopbackFabric fabric;
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    /** Queues whose one-shot notification fired and that {@link #await} has not handed out yet. */
    private LoopbackCompletionQueue[] fired = new LoopbackCompletionQueue[16];
    private int firedCount;
    private int queues;
    private boolean closed;
    private volatile Thread waiter;

    LoopbackCompletionChannel(LoopbackFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public CompletionQueue createCompletionQueue(VerbsDevice device, int capacity) throws VerbsException {
        if (!(device instanceof LoopbackDevice) || ((LoopbackDevice) device).fabric != fabric) {
            throw new VerbsException("device " + device + " is not on this channel's loopback fabric", Errno.EINVAL);
        }
        LoopbackDevice loopback = (LoopbackDevice) device;
        loopback.checkCapacity(capacity);
        fabric.lock.lock();
        try {
            fabric.checkOpen();
            if (closed) {
                throw new VerbsException("completion channel is closed", Errno.EBADF);
            }
            LoopbackCompletionQueue queue = new LoopbackCompletionQueue(loopback, capacity, this);
            fabric.addCompletionQueue(queue);
            queues++;
            return queue;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public int await(CompletionQueue[] out, long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        waiter = Thread.currentThread();
        try {
            for (;;) {
                int n = takeFired(out);
                if (n > 0) {
                    return n;
                }
                if (wakeupPending.getAndSet(false)) {
                    return 0;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return 0;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting completions");
                }
            }
        } finally {
            waiter = null;
        }
    }

    private int takeFired(CompletionQueue[] out) throws VerbsException {
        fabric.lock.lock();
        try {
            if (closed) {
                throw new VerbsException("completion channel is closed", Errno.EBADF);
            }
            int n = Math.min(firedCount, out.length);
            System.arraycopy(fired, 0, out, 0, n);
            System.arraycopy(fired, n, fired, 0, firedCount - n);
            for (int i = firedCount - n; i < firedCount; i++) {
                fired[i] = null;
            }
            firedCount -= n;
            return n;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public void wakeup() {
        if (!wakeupPending.getAndSet(true)) {
            LockSupport.unpark(waiter);
        }
    }

    /** Under the fabric lock: an armed queue of this channel has a visible entry (or overflowed). */
    void fire(LoopbackCompletionQueue queue) {
        if (firedCount == fired.length) {
            fired = Arrays.copyOf(fired, fired.length * 2);
        }
        fired[firedCount++] = queue;
        fabric.lock.unparkAfterUnlock(waiter);
    }

    /** Under the fabric lock: a queue of this channel was closed; a pending fire of it is dropped. */
    void onQueueClosed(LoopbackCompletionQueue queue) {
        queues--;
        for (int i = 0; i < firedCount; i++) {
            if (fired[i] == queue) {
                System.arraycopy(fired, i + 1, fired, i, firedCount - i - 1);
                fired[--firedCount] = null;
                i--;
            }
        }
    }

    @Override
    public void close() throws VerbsException {
        fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (queues > 0) {
                throw new VerbsException("completion channel still has " + queues + " open queues", Errno.EBUSY);
            }
            closed = true;
        } finally {
            fabric.lock.unlock();
        }
        LockSupport.unpark(waiter);
    }
}
