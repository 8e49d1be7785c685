package org.rpcrdma4j.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * LogThrottle - at most one log line per interval for one kind of event a peer can cause at will
 * (a malformed header, a refused credential, undecodable arguments): a hostile or broken client
 * must not be able to flood the log, and the operator still learns how many lines were held back.
 *
 * <pre>{@code
 * long held = garbageArguments.admit();
 * if (held >= 0) {
 *     LOG.warn("Call {} has undecodable arguments: {}{}", call, why, LogThrottle.held(held));
 * }
 * }</pre>
 */
public final class LogThrottle {

    /** The interval the dispatcher's and transports' throttles use: 10 seconds. */
    public static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final long intervalNanos;
    private final AtomicLong nextLine;
    private final LongAdder heldBack = new LongAdder();

    /** A throttle whose first event is logged at once. */
    public LogThrottle(long interval, TimeUnit unit) {
        if (interval <= 0) {
            throw new IllegalArgumentException("interval must be positive, was " + interval);
        }
        this.intervalNanos = unit.toNanos(interval);
        this.nextLine = new AtomicLong(System.nanoTime());
    }

    /** A throttle of {@link #DEFAULT_INTERVAL_NANOS}. */
    public LogThrottle() {
        this(DEFAULT_INTERVAL_NANOS, TimeUnit.NANOSECONDS);
    }

    /**
     * admit() - may this event be logged?
     *
     * @return -1 when it is to be held back (counted), else how many events were held back
     *         since the last line
     */
    public long admit() {
        long now = System.nanoTime();
        long next = nextLine.get();
        if (now - next < 0 || !nextLine.compareAndSet(next, now + intervalNanos)) {
            heldBack.increment();
            return -1;
        }
        return heldBack.sumThenReset();
    }

    /** The suffix of a line that says how many were held back ("" for none). */
    public static String held(long heldBack) {
        return heldBack <= 0 ? "" : " (" + heldBack + " more since the last such line; at most one per 10 s)";
    }
}
