package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RunningWorkersTest - the worker pool's running target (issue #33: 94 % of calls went to a
 * parked worker, and every call left queued woke one more): a backlog is run by the workers
 * already running, within the target, instead of waking one worker per call; calls that block do
 * not starve the queue, as a watching worker takes a call beside them.
 */
class RunningWorkersTest {
    private static final long WAIT_SECONDS = 30;
    /** Long enough that no call of these tests counts as blocked unless it is meant to. */
    private static final int NEVER_BLOCKED_MILLIS = 600_000;

    private final Object connection = new Object();
    private WorkerPool pool;

    @AfterEach
    void stop() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    private WorkerPool pool(int threads, int target, int blockedCallMillis) {
        pool = new WorkerPool(threads, 1024, target, blockedCallMillis, r -> new Thread(r, "running-workers-test"));
        return pool;
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
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
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
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
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
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
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
