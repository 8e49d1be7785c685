package org.rpcrdma4j.transport;

/**
 * ReplyLatency - a snapshot of one connection's reply latency: the server-side time from the
 * handling of a call's receive completion to the posting of its reply's SEND (the call's decoding,
 * READs of its read chunks, the program, the wait for the send lock and send-queue resources;
 * not the wire, nor the client).
 *
 * <p>The times come from a histogram of fixed buckets (1 µs wide below 32 µs, then 16 buckets to
 * each power of two, so a bucket is at most 1/16 of its lower bound wide; the last ends at
 * {@link #LIMIT_MICROS}), and every percentile and the maximum are a bucket's <b>upper bound</b>
 * (exclusive): p99 = 34 means 99 % of the replies took less than 34 µs, and at least 1 % took the
 * lower bound of that bucket (32 µs) or more. A value of {@link #OVERFLOW} means beyond the
 * histogram's last bucket.
 *
 * <p>A snapshot of a live connection is read while replies are posted, bucket by bucket: its
 * count is the sum of the buckets it read, so its percentiles always agree with its count.
 *
 * <p>Immutable; safe from any thread.
 */
public final class ReplyLatency {
    /** Where the last bucket ends: 2^26 µs (67.1 s). */
    public static final long LIMIT_MICROS = 1L << 26;
    /** A percentile or maximum in the overflow bucket: at least {@link #LIMIT_MICROS}. */
    public static final long OVERFLOW = Long.MAX_VALUE;
    /** No reply posted yet (every percentile 0). */
    public static final ReplyLatency EMPTY = new ReplyLatency(0, 0, 0, 0, 0, 0);

    private final long count;
    private final long p50;
    private final long p90;
    private final long p99;
    private final long p999;
    private final long max;

    /**
     * Each time is the upper bound (µs, exclusive) of the bucket holding it, or {@link #OVERFLOW};
     * 0 when {@code count} is 0.
     *
     * @param count replies measured
     * @param p50 the median
     * @param p90 the 90th percentile
     * @param p99 the 99th percentile
     * @param p999 the 99.9th percentile
     * @param max the highest
     */
    public ReplyLatency(long count, long p50, long p90, long p99, long p999, long max) {
        this.count = count;
        this.p50 = p50;
        this.p90 = p90;
        this.p99 = p99;
        this.p999 = p999;
        this.max = max;
    }

    /** @return replies whose SEND was posted since the connection opened */
    public long count() {
        return count;
    }

    /** @return the median, as its bucket's upper bound in µs */
    public long p50Micros() {
        return p50;
    }

    /** @return the 90th percentile, as its bucket's upper bound in µs */
    public long p90Micros() {
        return p90;
    }

    /** @return the 99th percentile, as its bucket's upper bound in µs */
    public long p99Micros() {
        return p99;
    }

    /** @return the 99.9th percentile, as its bucket's upper bound in µs */
    public long p999Micros() {
        return p999;
    }

    /** @return the upper bound in µs of the highest bucket any reply fell in */
    public long maxMicros() {
        return max;
    }

    /** @return {@code micros} as printed: the number, or {@code >67108864} for {@link #OVERFLOW} */
    public static String format(long micros) {
        return micros == OVERFLOW ? ">" + LIMIT_MICROS : Long.toString(micros);
    }

    @Override
    public String toString() {
        return "ReplyLatency[count=" + count + ", p50=" + format(p50) + ", p90=" + format(p90) + ", p99=" + format(p99)
                + ", p99.9=" + format(p999) + ", max=" + format(max) + " µs (bucket upper bounds)]";
    }
}
