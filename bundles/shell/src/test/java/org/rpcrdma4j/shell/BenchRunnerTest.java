package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * The runner against scripted channels. Timeouts here only bound a hang; no assertion depends on
 * how long anything took.
 */
class BenchRunnerTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void everyCallIsMadeOnceAndMeasured() {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        BenchResult r = new BenchRunner(new BenchPlan(500, 4, 1, 1, 0, LONG, LONG)).run("fake", channel((index, timeout) -> {
            if (!seen.add(index)) {
                duplicates.incrementAndGet();
            }
        }));
        assertEquals(500, seen.size());
        assertEquals(0, duplicates.get());
        assertEquals(500, r.succeeded());
        assertEquals(0, r.failed());
        assertEquals(0, r.notRun());
        assertEquals(500, r.latency().count());
        assertNull(r.firstFailure());
        assertFalse(r.interrupted());
        assertEquals("fake", r.transport());
    }

    @Test
    void failedCallsAreCountedAndTheFirstIsDescribed() {
        BenchResult r = new BenchRunner(new BenchPlan(300, 3, 1, 1, 0, LONG, LONG)).run("fake", channel((index, timeout) -> {
            if (index % 3 == 0) {
                throw new IOException("call accepted but not executed: PROG_UNAVAIL");
            }
        }));
        assertEquals(200, r.succeeded());
        assertEquals(100, r.failed());
        assertEquals(0, r.notRun());
        assertEquals(200, r.latency().count(), "failed calls have no latency");
        assertEquals("IOException: call accepted but not executed: PROG_UNAVAIL", r.firstFailure());
    }

    @Test
    void exactlyConcurrencyCallsAreInFlightAtOnce() {
        int concurrency = 5;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        // The first round of calls waits until all five are in flight: fewer would fail the barrier.
        CyclicBarrier allIn = new CyclicBarrier(concurrency);
        AtomicInteger calls = new AtomicInteger();
        BenchResult r = new BenchRunner(new BenchPlan(100, concurrency, 1, 1, 0, LONG, LONG)).run("fake", channel((index, timeout) -> {
            int now = inFlight.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            try {
                if (calls.incrementAndGet() <= concurrency) {
                    allIn.await(30, TimeUnit.SECONDS);
                }
            } finally {
                inFlight.decrementAndGet();
            }
        }));
        assertEquals(100, r.succeeded(), "first failure: " + r.firstFailure());
        assertEquals(concurrency, most.get());
    }

    @Test
    void callsNotStartedBeforeTheRunTimeoutAreReportedNotRun() {
        // Every call hangs until interrupted: each of the 2 workers starts one call, the run's time
        // runs out, the workers are interrupted and nothing else starts.
        BenchResult r = new BenchRunner(new BenchPlan(50, 2, 1, 1, 0, Duration.ofMillis(200), Duration.ofMillis(500)))
                .run("fake", channel((index, timeout) -> Thread.sleep(Long.MAX_VALUE)));
        assertEquals(0, r.succeeded());
        assertEquals(2, r.failed());
        assertEquals(48, r.notRun());
        assertEquals("interrupted", r.firstFailure());
        assertFalse(r.interrupted(), "the caller was not interrupted");
        assertTrue(Double.isNaN(r.latency().p50Micros()));
        assertEquals(0.0, r.callsPerSecond());
    }

    @Test
    void interruptingTheCallerStopsTheRunAndKeepsTheInterrupt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<BenchResult> result = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            result.set(new BenchRunner(new BenchPlan(10, 1, 1, 1, 0, LONG, LONG)).run("fake", channel((index, timeout) -> {
                started.countDown();
                Thread.sleep(Long.MAX_VALUE);
            })));
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertTrue(started.await(30, TimeUnit.SECONDS));
        caller.interrupt();
        caller.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(caller.isAlive());
        BenchResult r = result.get();
        assertTrue(r.interrupted());
        assertTrue(stillInterrupted.get());
        assertEquals(1, r.failed());
        assertEquals(9, r.notRun());
    }

    @Test
    void describeIsOneLineWithTheCause() {
        assertEquals("IOException: cannot reach (ConnectException: refused)",
                BenchRunner.describe(new IOException("cannot reach", new java.net.ConnectException("refused"))));
        assertEquals("IllegalStateException: a b", BenchRunner.describe(new IllegalStateException("a\nb")));
        assertEquals("InterruptedIOException", BenchRunner.describe(new java.io.InterruptedIOException()));
    }

    interface Call {
        void call(int index, Duration timeout) throws Exception;
    }

    private static BenchChannel channel(Call call) {
        return new BenchChannel() {
            @Override
            public void call(int index, Duration timeout) throws Exception {
                call.call(index, timeout);
            }

            @Override
            public void close() {
            }
        };
    }
}
