package org.rpcrdma4j.shell;

import java.time.Duration;

/**
 * BenchPlan - what one benchmark run does: how many NULL calls, how many in flight, to which
 * program, and how long a call and the whole run may take.
 *
 * @param calls calls to make, 1..{@value #MAX_CALLS}
 * @param concurrency calls in flight at once, 1..{@value #MAX_CONCURRENCY}
 * @param program the program number called
 * @param version the program version called
 * @param argumentBytes opaque argument bytes each call carries, 0..{@value #MAX_ARGUMENT_BYTES}
 *        (0: a plain NULL call with void arguments)
 * @param callTimeout the longest wait for one reply, positive
 * @param runTimeout the longest the whole run may take, positive; calls not started by then are
 *        reported as not run
 */
record BenchPlan(int calls, int concurrency, int program, int version, int argumentBytes, Duration callTimeout,
        Duration runTimeout) {
    /** Most calls per run (one latency sample of 8 bytes each is kept). */
    static final int MAX_CALLS = 10_000_000;
    /** Most calls in flight (the client's credit limit). */
    static final int MAX_CONCURRENCY = 1024;
    /** Most argument bytes per call (the transport's default limit on the bytes one call may READ). */
    static final int MAX_ARGUMENT_BYTES = 16 * 1024 * 1024;

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException naming the option out of range
     */
    BenchPlan {
        if (calls < 1 || calls > MAX_CALLS) {
            throw new IllegalArgumentException("-n (calls) must be within 1.." + MAX_CALLS + ": " + calls);
        }
        if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("-c (concurrency) must be within 1.." + MAX_CONCURRENCY + ": " + concurrency);
        }
        if (argumentBytes < 0 || argumentBytes > MAX_ARGUMENT_BYTES) {
            throw new IllegalArgumentException("-s (argument bytes) must be within 0.." + MAX_ARGUMENT_BYTES + ": " + argumentBytes);
        }
        if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("--call-timeout must be positive: " + callTimeout);
        }
        if (runTimeout == null || runTimeout.isNegative() || runTimeout.isZero()) {
            throw new IllegalArgumentException("--run-timeout must be positive: " + runTimeout);
        }
    }

    /** @return the worker threads a run uses: never more than there are calls */
    int workers() {
        return Math.min(concurrency, calls);
    }
}
