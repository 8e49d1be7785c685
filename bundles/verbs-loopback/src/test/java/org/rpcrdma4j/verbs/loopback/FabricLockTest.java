package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

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
}
