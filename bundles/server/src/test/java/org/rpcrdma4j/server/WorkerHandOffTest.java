package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WorkerHandOffTest - how the worker pool hands calls to sleeping workers and counts the wake-ups
 * (issue #33): a call that finds the worker asleep costs one wake-up, calls queued while it runs
 * cost none; one worker is woken at a time, the call handed to it directly, the next sleeper
 * woken by the one that starts when calls queued meanwhile; calls that block still get every
 * worker; shutting down ends the sleepers; an interrupt a call leaves behind does not keep its
 * worker from sleeping.
 */
class WorkerHandOffTest {
    private static final long WAIT_SECONDS = 10;
    private static final int WORKERS = 4;

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

    private WorkerPool pool(int workers) {
        return pool(workers, 64);
    }

    private WorkerPool pool(int workers, int maxQueuedPerConnection) {
        pool = new WorkerPool(workers, maxQueuedPerConnection, r -> {
            Thread t = new Thread(r, "hand-off-test-worker-" + threads.size());
            threads.add(t);
            return t;
        });
        return pool;
    }

    /** Until every worker of the pool sleeps waiting for a call. */
    private void awaitAllAsleep() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
            assertTrue(System.nanoTime() < deadline, "the workers never all waited for a call: "
                    + threads.stream().map(t -> t.getName() + " " + t.getState()).toList());
            Thread.sleep(1);
        }
    }

    /** A call that says it started, waits to be released, then runs {@code after}. */
    private static Runnable blockingCall(CountDownLatch started, CountDownLatch release, Runnable after) {
        return () -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            after.run();
        };
    }

    @Test
    void eachCallThatFindsTheWorkerAsleepWakesItOnce() throws InterruptedException {
        WorkerPool workers = pool(1);
        for (int i = 0; i < 5; i++) {
            awaitAllAsleep();
            CountDownLatch ran = new CountDownLatch(1);
            workers.execute(connection, ran::countDown);
            assertTrue(ran.await(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(i + 1, workers.wakeups(), "after call " + (i + 1));
        }
    }

    @Test
    void callsQueuedWhileTheWorkerRunsCostNoWakeup() throws InterruptedException {
        WorkerPool workers = pool(1);
        awaitAllAsleep();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allRan = new CountDownLatch(6);
        workers.execute(connection, blockingCall(running, release, allRan::countDown));
        assertTrue(running.await(WAIT_SECONDS, TimeUnit.SECONDS));
        for (int i = 0; i < 5; i++) {
            workers.execute(connection, allRan::countDown);
        }
        release.countDown();
        assertTrue(allRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, workers.wakeups(), "only the first call found the worker waiting");
    }

    @Test
    void callsThatBlockUntilAllRunTogetherGetEveryWorker() throws Exception {
        WorkerPool workers = pool(WORKERS);
        awaitAllAsleep();
        // Each call waits for the others: they finish only if every worker was woken for one,
        // the later ones by the workers woken before them.
        CyclicBarrier together = new CyclicBarrier(WORKERS);
        CountDownLatch done = new CountDownLatch(WORKERS);
        AtomicInteger broken = new AtomicInteger();
        for (int i = 0; i < WORKERS; i++) {
            workers.execute(connection, () -> {
                try {
                    together.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (Exception e) {
                    broken.incrementAndGet();
                }
                done.countDown();
            });
        }
        assertTrue(done.await(2 * WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, broken.get(), "calls that never met all the others");
        assertEquals(WORKERS, workers.wakeups(), "each call found its own worker asleep");
    }

    @Test
    void aBurstOfCallsCostsAtMostOneWakeupPerCallAndRunsEveryCallOnce() throws Exception {
        int calls = 1000;
        WorkerPool workers = pool(WORKERS, calls);
        awaitAllAsleep();
        AtomicInteger[] ran = new AtomicInteger[calls];
        CountDownLatch done = new CountDownLatch(calls);
        for (int i = 0; i < calls; i++) {
            AtomicInteger count = ran[i] = new AtomicInteger();
            workers.execute(i % 2 == 0 ? connection : "another connection", () -> {
                count.incrementAndGet();
                done.countDown();
            });
        }
        assertTrue(done.await(WAIT_SECONDS, TimeUnit.SECONDS));
        awaitAllAsleep();
        for (int i = 0; i < calls; i++) {
            assertEquals(1, ran[i].get(), "call " + i);
        }
        long wakeups = workers.wakeups();
        assertTrue(wakeups >= 1 && wakeups <= calls, "wake-ups " + wakeups + " for " + calls + " calls");
    }

    @Test
    void aCallThatLeavesItsThreadInterruptedDoesNotKeepTheWorkerFromSleeping() throws Exception {
        WorkerPool workers = pool(1);
        awaitAllAsleep();
        CountDownLatch ran = new CountDownLatch(1);
        workers.execute(connection, () -> {
            Thread.currentThread().interrupt();
            ran.countDown();
        });
        assertTrue(ran.await(WAIT_SECONDS, TimeUnit.SECONDS));
        awaitAllAsleep();
        // A park that an interrupt status kept returning would spin: WAITING only in glimpses.
        for (int i = 0; i < 200; i++) {
            assertEquals(Thread.State.WAITING, threads.get(0).getState(), "look " + i + " at the idle worker");
            Thread.yield();
        }
        CountDownLatch next = new CountDownLatch(1);
        workers.execute(connection, next::countDown);
        assertTrue(next.await(WAIT_SECONDS, TimeUnit.SECONDS), "the worker serves calls after it");
        assertEquals(2, workers.wakeups());
    }

    @Test
    void shutdownRunsWhatIsQueuedEndsTheSleepersAndRefusesNewCalls() throws Exception {
        WorkerPool workers = pool(WORKERS);
        awaitAllAsleep();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        workers.execute(connection, blockingCall(blocked, release, ran::incrementAndGet));
        assertTrue(blocked.await(WAIT_SECONDS, TimeUnit.SECONDS));
        for (int i = 0; i < 10; i++) {
            workers.execute(connection, ran::incrementAndGet);
        }
        workers.shutdown();
        assertThrows(RejectedExecutionException.class, () -> workers.execute(connection, ran::incrementAndGet));
        release.countDown();
        assertTrue(workers.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "every worker ended");
        assertEquals(11, ran.get(), "the running call and every queued one ran");
        assertTrue(threads.stream().noneMatch(Thread::isAlive));
    }

    @Test
    void terminationWaitsForTheWorkerThreadsThemselvesToEnd() throws Exception {
        // Threads that linger after the pool's loop returns (as a thread ends a moment after it
        // counts itself out): "terminated" must still mean no thread of the pool is alive.
        CountDownLatch lingering = new CountDownLatch(1);
        pool = new WorkerPool(2, 64, r -> {
            Thread t = new Thread(() -> {
                r.run();
                try {
                    lingering.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "hand-off-test-lingering-worker-" + threads.size());
            threads.add(t);
            return t;
        });
        awaitAllAsleep();
        pool.shutdown();
        assertFalse(pool.awaitTermination(50, TimeUnit.MILLISECONDS), "ended while its threads still live");
        lingering.countDown();
        assertTrue(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "every worker ended");
        assertTrue(threads.stream().noneMatch(Thread::isAlive));
    }

    @Test
    void shutdownNowDropsWhatIsQueuedAndEndsEveryWorker() throws Exception {
        WorkerPool workers = pool(2);
        awaitAllAsleep();
        CountDownLatch blocked = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            // never released: the stop's interrupt ends the call
            workers.execute(connection, blockingCall(blocked, new CountDownLatch(1), () -> { }));
        }
        assertTrue(blocked.await(WAIT_SECONDS, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 5; i++) {
            workers.execute(connection, ran::incrementAndGet);
        }
        assertEquals(5, workers.shutdownNow());
        assertTrue(workers.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, ran.get(), "dropped calls never ran");
    }
}
