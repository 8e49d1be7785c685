package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/**
 * FabricLockTest - the spinning acquisition keeps ReentrantLock's semantics: mutual exclusion
 * under contention (threads that spin, threads that park), reentrancy, and conditions.
 */
class FabricLockTest {
    private final FabricLock lock = new FabricLock();
    /** Guarded by {@link #lock}; plain, so a lost exclusion shows as a lost increment. */
    private long guarded;

    @Test
    void contendedThreadsNeverHoldItTogether() throws Exception {
        int threads = 4;
        int rounds = 100_000;
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    lock.lock();
                    try {
                        long seen = guarded;
                        if ((i & 1023) == 0) {
                            Thread.yield(); // now and then a holder is off the CPU: waiters park
                        }
                        guarded = seen + 1;
                    } finally {
                        lock.unlock();
                    }
                }
            }, "fabric-lock-" + t);
            thread.start();
            started.add(thread);
        }
        for (Thread thread : started) {
            thread.join(60_000);
            assertFalse(thread.isAlive(), thread.getName() + " finished");
        }
        assertEquals((long) threads * rounds, guarded);
        assertFalse(lock.isLocked());
    }

    @Test
    void reentrantAndConditionsWork() throws Exception {
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());

        Condition changed = lock.newCondition();
        Thread signaller = new Thread(() -> {
            lock.lock();
            try {
                guarded = 42;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }, "fabric-lock-signaller");
        lock.lock();
        try {
            signaller.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (guarded != 42 && System.nanoTime() < deadline) {
                changed.await(1, TimeUnit.SECONDS);
            }
            assertTrue(lock.isHeldByCurrentThread(), "await returns holding the lock");
        } finally {
            lock.unlock();
        }
        signaller.join(30_000);
        assertEquals(42, guarded);
    }

    /** A thread parked until its flag is set, and whether each of its wake-ups found the flag. */
    private static class Sleeper extends Thread {
        volatile boolean released;
        volatile int wokenEarly;
        volatile boolean parked;

        @Override
        public void run() {
            while (!released) {
                parked = true;
                LockSupport.park(this);
                if (!released) {
                    wokenEarly++;
                }
            }
        }

        void awaitParked() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!(parked && getState() == Thread.State.WAITING)) {
                assertTrue(System.nanoTime() < deadline, "the sleeper never parked");
                Thread.sleep(1);
            }
        }
    }

    @Test
    void aWakeUpAskedUnderTheLockIsMadeOnceTheOutermostUnlockLetsGo() throws Exception {
        Sleeper sleeper = new Sleeper();
        sleeper.start();
        sleeper.awaitParked();
        lock.lock();
        lock.lock();
        sleeper.released = true;
        lock.unparkAfterUnlock(sleeper);
        lock.unparkAfterUnlock(sleeper); // asked twice, made once
        lock.unlock();
        // still held (reentrant): nothing woken yet
        Thread.sleep(50);
        assertEquals(Thread.State.WAITING, sleeper.getState(), "woken while the lock was still held");
        lock.unlock();
        sleeper.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(sleeper.isAlive(), "the outermost unlock woke the sleeper");
        assertEquals(0, sleeper.wokenEarly);
    }

    @Test
    void aConditionsWaitMakesTheDeferredWakeUpsBeforeItGivesTheLockUp() throws Exception {
        Condition answered = lock.newCondition();
        boolean[] answer = new boolean[1];
        Sleeper sleeper = new Sleeper() {
            @Override
            public void run() {
                super.run();
                lock.lock();
                try {
                    answer[0] = true;
                    answered.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        };
        sleeper.start();
        sleeper.awaitParked();
        lock.lock();
        try {
            sleeper.released = true;
            lock.unparkAfterUnlock(sleeper);
            // The wait gives the lock up without unlock(): had the wake-up waited for a later
            // unlock, the sleeper would never answer and the wait would time out.
            assertTrue(answered.await(10, TimeUnit.SECONDS), "the condition's wait woke the sleeper");
            assertTrue(answer[0]);
        } finally {
            lock.unlock();
        }
        sleeper.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(sleeper.isAlive());
    }
}
