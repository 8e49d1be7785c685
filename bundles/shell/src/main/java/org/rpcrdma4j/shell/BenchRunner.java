package org.rpcrdma4j.shell;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * BenchRunner - drives one benchmark run: {@link BenchPlan#workers()} threads take call numbers
 * from a shared counter and make blocking calls through a {@link BenchChannel}, so at most that
 * many calls are in flight; every successful call's latency is kept.
 *
 * <p>Bounded: each call waits at most {@link BenchPlan#callTimeout()}; no call starts after
 * {@link BenchPlan#runTimeout()}, and when the run's time is up (plus one call timeout for the
 * calls in flight) the workers are interrupted. An interrupt of the thread calling {@link #run}
 * (Ctrl-C in the console) stops the workers the same way and is reported in the result, with the
 * interrupt status set again.
 *
 * <p>Ownership: the caller owns the channel and closes it after {@link #run} returned (the
 * workers have then stopped, or been interrupted and given one call timeout to stop).
 */
final class BenchRunner {
    private final BenchPlan plan;

    /** @param plan the run's settings */
    BenchRunner(BenchPlan plan) {
        this.plan = plan;
    }

    /**
     * run() - makes the plan's calls through {@code channel}.
     *
     * @param label the transport's label for the result
     * @param channel the connection, safe for concurrent calls
     * @return what happened; never throws for a failed call
     */
    BenchResult run(String label, BenchChannel channel) {
        int calls = plan.calls();
        long[] latencies = new long[calls];
        Arrays.fill(latencies, -1);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        long start = System.nanoTime();
        long deadline = start + plan.runTimeout().toNanos();
        ExecutorService workers = Executors.newFixedThreadPool(plan.workers(), BenchRunner::workerThread);
        boolean interrupted = false;
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < plan.workers(); w++) {
                running.add(workers.submit(() -> work(channel, next, deadline, latencies, failed, firstFailure)));
            }
            interrupted = awaitWorkers(running, deadline + plan.callTimeout().toNanos());
        } finally {
            workers.shutdownNow();
            interrupted |= awaitStop(workers);
        }
        long elapsed = System.nanoTime() - start;
        LatencySummary summary = LatencySummary.of(latencies);
        int started = Math.min(next.get(), calls);
        // A call still in flight after the workers were stopped counts as failed.
        int unanswered = started - summary.count();
        if (unanswered > failed.get()) {
            firstFailure.compareAndSet(null, "no reply before the run ended");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return new BenchResult(label, summary.count(), unanswered, calls - started, elapsed, summary, firstFailure.get(),
                interrupted);
    }

    /** One worker: takes call numbers until none is left or the run's time is up. */
    private void work(BenchChannel channel, AtomicInteger next, long deadline, long[] latencies, AtomicInteger failed,
            AtomicReference<String> firstFailure) {
        while (!Thread.currentThread().isInterrupted() && System.nanoTime() - deadline < 0) {
            int index = next.getAndIncrement();
            if (index >= latencies.length) {
                return;
            }
            long t0 = System.nanoTime();
            try {
                channel.call(index, plan.callTimeout());
                latencies[index] = System.nanoTime() - t0;
            } catch (InterruptedException e) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, "interrupted");
                Thread.currentThread().interrupt();
                return;
            } catch (Exception | AssertionError e) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, describe(e));
            }
        }
    }

    /** Waits for every worker until {@code stopAt}; returns whether the caller was interrupted. */
    private boolean awaitWorkers(List<Future<?>> running, long stopAt) {
        for (Future<?> f : running) {
            try {
                f.get(Math.max(0, stopAt - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (java.util.concurrent.ExecutionException e) {
                // work() catches every failure of a call; nothing else is expected here
                throw new IllegalStateException("benchmark worker failed", e.getCause());
            }
        }
        return false;
    }

    /** Gives interrupted workers one call timeout to return; returns whether we were interrupted. */
    private boolean awaitStop(ExecutorService workers) {
        try {
            workers.awaitTermination(plan.callTimeout().toNanos(), TimeUnit.NANOSECONDS);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    /** A failure in one line: its class and message, and the cause's when it has one. */
    static String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        Throwable cause = e.getCause();
        if (cause != null && cause != e && (e.getMessage() == null || !e.getMessage().contains(String.valueOf(cause.getMessage())))) {
            text += " (" + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")";
        }
        return text.replace('\n', ' ');
    }

    private static Thread workerThread(Runnable r) {
        Thread t = new Thread(r, "rpcrdma-bench");
        t.setDaemon(true);
        return t;
    }
}
