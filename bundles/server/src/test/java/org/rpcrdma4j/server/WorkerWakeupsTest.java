package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WorkerWakeupsTest - the worker pool counts every wake-up of a worker that waited for a call
 * (issue #33: the hand-off's thread wake-ups per call): a call that finds the worker asleep costs
 * one, calls queued while the worker runs cost none. And its running target (issue #33: 94 % of
 * calls went to a parked worker, and every call left queued woke one more): a backlog is run by
 * the workers already running, within the target, instead of waking one worker per call; calls
 * that block do not starve the queue, as a watching worker takes a call beside them.
 */
class WorkerWakeupsTest {
    private static final long WAIT_SECONDS = 30;
    /** Long enough that no call of these tests counts as blocked unless it is meant to. */
    private static final int NEVER_BLOCKED_MILLIS = 600_000;

    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Object connection = new Object();
    private WorkerPool pool;

    @AfterEach
    void stop() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    private WorkerPool onePool() {
        return pool(1, 1, NEVER_BLOCKED_MILLIS);
    }

    private WorkerPool pool(int workers, int target, int blockedCallMillis) {
        pool = new WorkerPool(workers, 1024, target, blockedCallMillis, r -> {
            Thread t = new Thread(r, "wakeups-test-worker");
            threads.add(t);
            return t;
        });
        return pool;
    }

    /** In a call: blocks its worker until the latch opens (or the pool's shutdownNow interrupts it). */
    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Until the pool's only worker waits for a call (its wait is where a wake-up is counted). */
    private void awaitWorkerAsleep() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (threads.get(0).getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline, "the worker never waited for a call");
            Thread.sleep(1);
        }
    }

    @Test
    void eachCallThatFindsTheWorkerAsleepWakesItOnce() throws InterruptedException {
        WorkerPool workers = onePool();
        for (int i = 0; i < 5; i++) {
            awaitWorkerAsleep();
            CountDownLatch ran = new CountDownLatch(1);
            workers.execute(connection, ran::countDown);
            assertTrue(ran.await(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(i + 1, workers.wakeups(), "after call " + (i + 1));
        }
    }

    @Test
    void callsQueuedWhileTheWorkerRunsCostNoWakeup() throws InterruptedException {
        WorkerPool workers = onePool();
        awaitWorkerAsleep();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allRan = new CountDownLatch(6);
        workers.execute(connection, () -> {
            running.countDown();
            awaitQuietly(release);
            allRan.countDown();
        });
        assertTrue(running.await(WAIT_SECONDS, TimeUnit.SECONDS));
        for (int i = 0; i < 5; i++) {
            workers.execute(connection, allRan::countDown);
        }
        release.countDown();
        assertTrue(allRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, workers.wakeups(), "only the first call found the worker waiting");
    }

    @Test
    void aBacklogIsRunByTheWorkersWithinTheTargetWithoutAWakeupPerCall() throws InterruptedException {
        WorkerPool workers = pool(8, 2, NEVER_BLOCKED_MILLIS);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger inCalls = new AtomicInteger();
        AtomicInteger mostInCalls = new AtomicInteger();
        int calls = 200;
        CountDownLatch allRan = new CountDownLatch(calls);
        for (int i = 0; i < calls; i++) {
            workers.execute(i % 2 == 0 ? connection : "another connection", () -> {
                int now = inCalls.incrementAndGet();
                mostInCalls.accumulateAndGet(now, Math::max);
                awaitQuietly(release);
                inCalls.decrementAndGet();
                allRan.countDown();
            });
        }
        release.countDown();
        assertTrue(allRan.await(WAIT_SECONDS, TimeUnit.SECONDS), allRan.getCount() + " calls never ran");
        assertTrue(mostInCalls.get() <= 2, "at most the target run calls at once, saw " + mostInCalls.get());
        // the two workers of the target, and one that watches for blocked calls; a wait may
        // return spuriously now and then, never once per call
        assertTrue(workers.wakeups() < 10, "wake-ups for " + calls + " calls: " + workers.wakeups());
        assertEquals(0, workers.addedForBlockedCalls());
    }

    @Test
    void aCallThatWaitsForAQueuedCallIsNotLeftBlockedBehindTheTarget() throws InterruptedException {
        WorkerPool workers = pool(4, 1, 1);
        CountDownLatch secondRan = new CountDownLatch(1);
        CountDownLatch bothRan = new CountDownLatch(2);
        workers.execute(connection, () -> {
            try {
                // blocks its worker (the whole target) until the call queued behind it has run
                if (secondRan.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    bothRan.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        workers.execute(connection, () -> {
            secondRan.countDown();
            bothRan.countDown();
        });
        assertTrue(bothRan.await(WAIT_SECONDS, TimeUnit.SECONDS), "the queued call never got a worker beside the blocked one");
        assertTrue(workers.addedForBlockedCalls() >= 1, "counted: " + workers.addedForBlockedCalls());
    }

    @Test
    void callsBlockedTogetherGrowThePoolUpToItsThreads() throws InterruptedException {
        int threads = 6;
        WorkerPool workers = pool(threads, 1, 1);
        CountDownLatch allStarted = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allRan = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            workers.execute(connection, () -> {
                allStarted.countDown();
                awaitQuietly(release);
                allRan.countDown();
            });
        }
        assertTrue(allStarted.await(WAIT_SECONDS, TimeUnit.SECONDS), (threads - allStarted.getCount()) + " of " + threads
                + " blocked calls got a worker");
        release.countDown();
        assertTrue(allRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(threads - 1, workers.addedForBlockedCalls(), "every worker beyond the target was added beside a blocked call");
    }

    @Test
    void shutdownRunsEveryQueuedCallWhateverTheTarget() throws InterruptedException {
        WorkerPool workers = pool(4, 1, NEVER_BLOCKED_MILLIS);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allRan = new CountDownLatch(20);
        for (int i = 0; i < 20; i++) {
            workers.execute(connection, () -> {
                awaitQuietly(release);
                allRan.countDown();
            });
        }
        workers.shutdown();
        release.countDown();
        assertTrue(workers.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, allRan.getCount(), "calls queued before the shutdown were dropped");
        pool = null;
    }

    @Test
    void theTargetIsCheckedWhenSet() {
        assertThrows(IllegalArgumentException.class, () -> new WorkerPool(4, 16, 0, 10, Thread::new));
        assertThrows(IllegalArgumentException.class, () -> new WorkerPool(4, 16, 5, 10, Thread::new));
        assertThrows(IllegalArgumentException.class, () -> new WorkerPool(4, 16, 2, 0, Thread::new));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new HostServer(4, 16, -1, 10)).getMessage()
                .contains("runningWorkers"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new HostServer(4, 16, 0, 0)).getMessage()
                .contains("blockedCallMillis"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new HostServer(4, 16, 0, HostServer.MAX_BLOCKED_CALL_MILLIS + 1)).getMessage().contains("blockedCallMillis"));
    }
}
