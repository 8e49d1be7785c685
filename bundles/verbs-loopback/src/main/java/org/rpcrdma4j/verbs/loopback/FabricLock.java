package org.rpcrdma4j.verbs.loopback;

import java.util.Arrays;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * FabricLock - the fabric's one lock, taken by spinning briefly before it parks, as an adaptive
 * mutex does (glibc's PTHREAD_MUTEX_ADAPTIVE_NP, the kernel mutex's optimistic spin).
 *
 * <p>Every post, poll and completion of the fabric takes this lock for a few microseconds (a
 * SEND executed on the poster's thread copies the message and completes it under it). A plain
 * ReentrantLock parks a thread that finds it held, and the holder's unlock then unparks it: a
 * futex wait and a futex wake, each costing more than the critical section, on the path of every
 * message. Profiled at 8 calls in flight over the fabric (async-profiler, cpu), the park in
 * acquire and the unpark in release took about 30 % of all CPU samples, where real NICs have
 * no lock between one side's post and the other side's poll; with the spin, the RPC-over-RDMA
 * benchmarks ran 1.8x as many small calls per second. Spinning for about the length of a
 * critical section first takes most contended acquisitions without either; a holder that is
 * descheduled or slow still parks the waiter, bounded by {@link #SPINS}.
 *
 * <p>A thread woken for what happened under the lock (a completion channel's waiter, for a
 * completion a post produced) is unparked once the lock is let go ({@link #unparkAfterUnlock}),
 * not inside the critical section: woken there, it ran straight into the lock its waker still
 * held and slept again, a second wake-up per event (on one CPU, where spinning cannot help,
 * JFR counted one such park per completion-channel wake-up: 8-in-flight NULL calls at a tenth
 * of their rate without the next-call spin). Before a condition's wait gives the lock up, the
 * wake-ups still pending are made.
 *
 * <p>Semantics are ReentrantLock's (non-fair, reentrant, same conditions): only how a waiter
 * waits, and when a thread woken under the lock runs, change.
 */
final class FabricLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    /**
     * Looks before parking, each after a Thread.onSpinWait(): about 1 microsecond on this
     * project's 2-CPU host (measured), a few on CPUs with a longer PAUSE.
     */
    static final int SPINS = 64;
    /** Wake-ups one critical section may defer; beyond, a wake-up is made at once (only slower). */
    private static final int DEFERRED_WAKEUPS = 8;

    /** Threads to unpark when the holder lets go of the lock; the holder's (guarded by the lock). */
    private final Thread[] wakeAfterUnlock = new Thread[DEFERRED_WAKEUPS];
    private int wakeCount;

    /**
     * unparkAfterUnlock() - under the lock: unpark {@code thread} when the holder lets go of the
     * lock (its outermost unlock, or a condition's wait), once however often it is asked.
     */
    void unparkAfterUnlock(Thread thread) {
        assert isHeldByCurrentThread() : "a deferred wake-up without the fabric lock";
        if (thread == null) {
            return;
        }
        for (int i = 0; i < wakeCount; i++) {
            if (wakeAfterUnlock[i] == thread) {
                return;
            }
        }
        if (wakeCount == wakeAfterUnlock.length) {
            LockSupport.unpark(thread);
            return;
        }
        wakeAfterUnlock[wakeCount++] = thread;
    }

    @Override
    public void unlock() {
        if (wakeCount == 0 || getHoldCount() > 1) {
            super.unlock();
            return;
        }
        // The holder's last unlock: take the list while still holding, wake once let go.
        int n = wakeCount;
        Thread first = wakeAfterUnlock[0];
        Thread[] more = n > 1 ? Arrays.copyOfRange(wakeAfterUnlock, 1, n) : null;
        Arrays.fill(wakeAfterUnlock, 0, n, null);
        wakeCount = 0;
        super.unlock();
        LockSupport.unpark(first);
        if (more != null) {
            for (Thread t : more) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Under the lock, before it is given up otherwise than by unlock: the deferred wake-ups now. */
    private void wakeNow() {
        for (int i = 0; i < wakeCount; i++) {
            LockSupport.unpark(wakeAfterUnlock[i]);
            wakeAfterUnlock[i] = null;
        }
        wakeCount = 0;
    }

    /** @return a condition of this lock whose waits first make the wake-ups the holder deferred */
    @Override
    public Condition newCondition() {
        Condition c = super.newCondition();
        return new Condition() {
            @Override
            public void await() throws InterruptedException {
                wakeNow();
                c.await();
            }

            @Override
            public void awaitUninterruptibly() {
                wakeNow();
                c.awaitUninterruptibly();
            }

            @Override
            public long awaitNanos(long nanosTimeout) throws InterruptedException {
                wakeNow();
                return c.awaitNanos(nanosTimeout);
            }

            @Override
            public boolean await(long time, TimeUnit unit) throws InterruptedException {
                wakeNow();
                return c.await(time, unit);
            }

            @Override
            public boolean awaitUntil(Date deadline) throws InterruptedException {
                wakeNow();
                return c.awaitUntil(deadline);
            }

            @Override
            public void signal() {
                c.signal();
            }

            @Override
            public void signalAll() {
                c.signalAll();
            }
        };
    }

    @Override
    public void lock() {
        if (tryLock()) {
            return;
        }
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if (!isLocked() && tryLock()) {
                return;
            }
        }
        super.lock();
    }
}
