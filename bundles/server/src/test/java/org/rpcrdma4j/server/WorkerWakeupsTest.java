package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WorkerWakeupsTest - the worker pool counts every wake-up of a worker that waited for a call
 * (issue #33: the hand-off's thread wake-ups per call): a call that finds the worker asleep costs
 * one, calls queued while the worker runs cost none.
 */
class WorkerWakeupsTest {
    private static final long WAIT_SECONDS = 10;

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
        pool = new WorkerPool(1, 64, r -> {
            Thread t = new Thread(r, "wakeups-test-worker");
            threads.add(t);
            return t;
        });
        return pool;
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
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
}
