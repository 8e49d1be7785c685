package org.rpcrdma4j.transport.internal.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.ReplyLatency;

/**
 * LatencyHistogramTest - the bucket of every duration and where each bucket ends, exactly; the
 * percentiles of known inputs; taking a recording back; the writer check.
 */
class LatencyHistogramTest {
    private static final long US = 1000;

    @Test
    void bucketsAreOneMicrosecondWideBelow32AndSixteenPerPowerOfTwoAbove() {
        assertEquals(0, LatencyHistogram.bucketOf(0));
        assertEquals(0, LatencyHistogram.bucketOf(999), "whole microseconds, rounded down");
        assertEquals(0, LatencyHistogram.bucketOf(-5), "a clock that went back counts as 0");
        assertEquals(1, LatencyHistogram.bucketOf(1 * US));
        assertEquals(31, LatencyHistogram.bucketOf(31 * US + 999));
        assertEquals(32, LatencyHistogram.bucketOf(32 * US), "[32, 34)");
        assertEquals(32, LatencyHistogram.bucketOf(33 * US + 999));
        assertEquals(33, LatencyHistogram.bucketOf(34 * US));
        assertEquals(47, LatencyHistogram.bucketOf(63 * US));
        assertEquals(48, LatencyHistogram.bucketOf(64 * US), "[64, 68)");
        assertEquals(48, LatencyHistogram.bucketOf(67 * US));
        assertEquals(49, LatencyHistogram.bucketOf(68 * US));
        // 1000 us: highest bit 9, 32 us steps from 512: (1000 - 512) / 32 = 15 → [992, 1024)
        assertEquals(32 + 4 * 16 + 15, LatencyHistogram.bucketOf(1000 * US));
        assertEquals(1024, LatencyHistogram.upperBoundMicros(LatencyHistogram.bucketOf(1000 * US)));
        assertEquals(367, LatencyHistogram.bucketOf(((1L << 26) - 1) * US), "the last bucket before the overflow");
        assertEquals(368, LatencyHistogram.bucketOf((1L << 26) * US), "overflow from 2^26 us (67.1 s)");
        assertEquals(368, LatencyHistogram.bucketOf(Long.MAX_VALUE));
        assertEquals(369, LatencyHistogram.BUCKETS);
    }

    @Test
    void upperBoundsAreExclusiveAndContiguous() {
        assertEquals(1, LatencyHistogram.upperBoundMicros(0));
        assertEquals(32, LatencyHistogram.upperBoundMicros(31));
        assertEquals(34, LatencyHistogram.upperBoundMicros(32));
        assertEquals(64, LatencyHistogram.upperBoundMicros(47));
        assertEquals(68, LatencyHistogram.upperBoundMicros(48));
        assertEquals(1L << 26, LatencyHistogram.upperBoundMicros(367));
        assertEquals(ReplyLatency.OVERFLOW, LatencyHistogram.upperBoundMicros(368));
        for (int b = 0; b < LatencyHistogram.BUCKETS - 1; b++) {
            long end = LatencyHistogram.upperBoundMicros(b);
            assertEquals(b, LatencyHistogram.bucketOf((end - 1) * US + 999), "the last ns of bucket " + b);
            assertEquals(b + 1, LatencyHistogram.bucketOf(end * US), "the first ns after bucket " + b);
            long width = end - (b == 0 ? 0 : LatencyHistogram.upperBoundMicros(b - 1));
            long lower = end - width;
            assertEquals(true, lower < 32 ? width == 1 : width * 16 <= lower, "bucket " + b + " is [" + lower + ", " + end + ")");
        }
    }

    @Test
    void percentilesOfAThousandKnownDurationsAreTheirBucketsUpperBounds() {
        LatencyHistogram h = new LatencyHistogram(() -> true);
        // 1..1000 us, one each: rank 500 is 500 us in [496, 512); rank 900 is 900 us in [896, 928);
        // rank 990 is 990 us in [960, 992); rank 999 is 999 us in [992, 1024), as is the maximum.
        for (int i = 1; i <= 1000; i++) {
            h.record(i * US + 500);
        }
        ReplyLatency s = h.snapshot();
        assertEquals(1000, s.count());
        assertEquals(512, s.p50Micros());
        assertEquals(928, s.p90Micros());
        assertEquals(992, s.p99Micros());
        assertEquals(1024, s.p999Micros());
        assertEquals(1024, s.maxMicros());
    }

    @Test
    void ranksRoundUpSoTheTopOnePercentDecidesP99() {
        LatencyHistogram h = new LatencyHistogram(() -> true);
        for (int i = 0; i < 989; i++) {
            h.record(10 * US);
        }
        for (int i = 0; i < 11; i++) {
            h.record(5000 * US);
        }
        ReplyLatency s = h.snapshot();
        assertEquals(1000, s.count());
        assertEquals(11, s.p50Micros());
        assertEquals(11, s.p90Micros());
        // rank 990 is the first of the slow ones: 5000 us in [4864, 5120)
        assertEquals(5120, s.p99Micros());
        assertEquals(5120, s.maxMicros());
        LatencyHistogram one = new LatencyHistogram(() -> true);
        one.record(3 * US);
        assertEquals(new ReplyLatency(1, 4, 4, 4, 4, 4).toString(), one.snapshot().toString());
    }

    @Test
    void emptyOverflowAndTakenBack() {
        LatencyHistogram h = new LatencyHistogram(() -> true);
        assertSame(ReplyLatency.EMPTY, h.snapshot());
        int bucket = h.record(70_000_000_000L);
        assertEquals(368, bucket);
        ReplyLatency s = h.snapshot();
        assertEquals(ReplyLatency.OVERFLOW, s.p50Micros());
        assertEquals(">67108864", ReplyLatency.format(s.maxMicros()));
        h.unrecord(bucket);
        assertSame(ReplyLatency.EMPTY, h.snapshot(), "a failed post is taken back");
    }

    @Test
    void onlyTheWriterRecords() {
        boolean assertions = false;
        assert assertions = true;
        assumeTrue(assertions, "needs -ea");
        LatencyHistogram h = new LatencyHistogram(() -> false);
        assertThrows(AssertionError.class, () -> h.record(1));
    }
}
