package org.rpcrdma4j.transport.internal.common;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

import org.rpcrdma4j.transport.ReplyLatency;

/**
 * LatencyHistogram - a single-writer histogram of durations in fixed log-linear buckets (the
 * HdrHistogram layout with 16 sub-buckets, in whole microseconds), for one connection's reply
 * latency ({@link ReplyLatency}).
 *
 * <p>Buckets, for a duration of {@code u} whole µs (nanoseconds / 1000, rounded down):
 * <ul>
 * <li>{@code u < 32}: bucket {@code u}, one µs wide ({@code [u, u + 1)});</li>
 * <li>{@code 32 <= u < 2^26}: with {@code e} the highest set bit of {@code u} (5..25), the 16
 *     buckets {@code [2^e + k * 2^(e-4), 2^e + (k + 1) * 2^(e-4))}, k = 0..15, numbered on from 32;</li>
 * <li>{@code u >= 2^26} (67.1 s): one overflow bucket, the last ({@link #BUCKETS} - 1).</li>
 * </ul>
 * So a bucket above 32 µs is at most 1/16 (6.25 %) of its lower bound wide, and the array has 369 slots.
 *
 * <p>Threading: {@link #record} by this histogram's one writer at a time, named by the
 * {@code writer} check (for a connection, whoever holds its send lock; asserted), as
 * {@link Counters#addOwned} counts: a plain read and an ordered write of one slot, no atomic
 * instruction, no allocation. {@link #snapshot} from any thread (opaque reads).
 */
public final class LatencyHistogram {
    /** Sub-buckets per power of two: 2^{@value #SUB_BITS}. */
    private static final int SUB_BITS = 4;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Below this many µs every bucket is 1 µs wide. */
    private static final int LINEAR = 2 * SUB_BUCKETS;
    /** The highest set bit of the largest duration with a bucket of its own. */
    private static final int TOP_BIT = Long.numberOfTrailingZeros(ReplyLatency.LIMIT_MICROS) - 1;
    /** The overflow bucket's index. */
    static final int OVERFLOW_BUCKET = LINEAR + (TOP_BIT - SUB_BITS) * SUB_BUCKETS;
    /** Slots, with the overflow bucket. */
    public static final int BUCKETS = OVERFLOW_BUCKET + 1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** Durations per bucket: written by the writer only (ordered), read by anyone (opaque). */
    private final long[] counts = new long[BUCKETS];
    private final BooleanSupplier writer;

    /** @param writer true when the calling thread may {@link #record} now (checked by assertions) */
    public LatencyHistogram(BooleanSupplier writer) {
        this.writer = writer;
    }

    /**
     * bucketOf() - the bucket of a duration.
     *
     * @param nanos the duration (a negative one, from a clock that went back, counts as 0)
     * @return its bucket's index, 0..{@link #BUCKETS} - 1
     */
    public static int bucketOf(long nanos) {
        long u = Math.max(0, nanos) / 1000;
        if (u < LINEAR) {
            return (int) u;
        }
        if (u >= ReplyLatency.LIMIT_MICROS) {
            return OVERFLOW_BUCKET;
        }
        int e = 63 - Long.numberOfLeadingZeros(u);
        int sub = (int) (u >>> (e - SUB_BITS)) & (SUB_BUCKETS - 1);
        return LINEAR + (e - SUB_BITS - 1) * SUB_BUCKETS + sub;
    }

    /**
     * upperBoundMicros() - where a bucket ends.
     *
     * @param bucket its index
     * @return the smallest whole µs beyond it (exclusive bound), or {@link ReplyLatency#OVERFLOW} for the overflow bucket
     */
    public static long upperBoundMicros(int bucket) {
        if (bucket < LINEAR) {
            return bucket + 1;
        }
        if (bucket >= OVERFLOW_BUCKET) {
            return ReplyLatency.OVERFLOW;
        }
        int e = (bucket - LINEAR) / SUB_BUCKETS + SUB_BITS + 1;
        int sub = (bucket - LINEAR) % SUB_BUCKETS;
        return (long) (SUB_BUCKETS + sub + 1) << (e - SUB_BITS);
    }

    /**
     * record() - count one duration, as this histogram's writer. Allocates nothing.
     *
     * @param nanos the duration in ns
     * @return its bucket, for {@link #unrecord}
     */
    public int record(long nanos) {
        assert writer.getAsBoolean() : "a latency recorded off this histogram's writer";
        int bucket = bucketOf(nanos);
        SLOT.setRelease(counts, bucket, counts[bucket] + 1);
        return bucket;
    }

    /**
     * unrecord() - take back a duration {@link #record} counted in {@code bucket} (its post
     * failed), as this histogram's writer.
     */
    public void unrecord(int bucket) {
        assert writer.getAsBoolean() : "a latency taken back off this histogram's writer";
        SLOT.setRelease(counts, bucket, counts[bucket] - 1);
    }

    /** @return the counts as they are now (opaque reads; from any thread), one slot per bucket */
    public long[] counts() {
        long[] copy = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            copy[i] = (long) SLOT.getOpaque(counts, i);
        }
        return copy;
    }

    /** @return count, percentiles and maximum of what was recorded so far; any thread */
    public ReplyLatency snapshot() {
        return summarize(counts());
    }

    /**
     * summarize() - count, p50, p90, p99, p99.9 and maximum of bucket counts: the percentile p is
     * the upper bound of the bucket holding the ceil(p * count)-th smallest duration.
     *
     * @param counts one slot per bucket ({@link #BUCKETS})
     * @return the summary ({@link ReplyLatency#EMPTY} for no durations)
     */
    public static ReplyLatency summarize(long[] counts) {
        long total = 0;
        int highest = -1;
        for (int i = 0; i < counts.length; i++) {
            total += counts[i];
            if (counts[i] > 0) {
                highest = i;
            }
        }
        if (total <= 0) {
            return ReplyLatency.EMPTY;
        }
        return new ReplyLatency(total, percentile(counts, total, 500), percentile(counts, total, 900),
                percentile(counts, total, 990), percentile(counts, total, 999), upperBoundMicros(highest));
    }

    /** @return the upper bound of the bucket holding the ceil(total * perMille / 1000)-th duration */
    private static long percentile(long[] counts, long total, int perMille) {
        long rank = Math.max(1, (total * perMille + 999) / 1000);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return upperBoundMicros(i);
            }
        }
        return upperBoundMicros(counts.length - 1);
    }
}
