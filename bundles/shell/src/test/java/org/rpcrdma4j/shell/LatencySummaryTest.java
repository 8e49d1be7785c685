package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class LatencySummaryTest {

    @Test
    void nearestRankPercentilesOfOneToOneThousand() {
        long[] sorted = LongStream.rangeClosed(1, 1000).toArray();
        assertEquals(500, LatencySummary.percentile(sorted, 50));
        assertEquals(990, LatencySummary.percentile(sorted, 99));
        assertEquals(999, LatencySummary.percentile(sorted, 99.9), "rank ceil(0.999 * 1000) = 999, not 1000");
        assertEquals(1000, LatencySummary.percentile(sorted, 100));
        assertEquals(1, LatencySummary.percentile(sorted, 0.1));
    }

    @Test
    void nearestRankRoundsTheRankUp() {
        long[] sorted = {10, 20, 30};
        assertEquals(20, LatencySummary.percentile(sorted, 50), "ceil(1.5) = 2");
        assertEquals(30, LatencySummary.percentile(sorted, 99));
        assertEquals(10, LatencySummary.percentile(sorted, 33.3), "ceil(0.999) = 1");
        assertEquals(20, LatencySummary.percentile(sorted, 33.4));
        long[] two000 = LongStream.rangeClosed(1, 2000).toArray();
        assertEquals(1998, LatencySummary.percentile(two000, 99.9));
        assertEquals(1980, LatencySummary.percentile(two000, 99));
    }

    @Test
    void summaryInMicrosecondsSkippingCallsWithoutALatency() {
        // 4 samples of 1, 2, 3 and 10 us given in ns, unsorted, with two failed calls (-1)
        LatencySummary s = LatencySummary.of(new long[] {3_000, -1, 1_000, 10_000, -1, 2_000});
        assertEquals(4, s.count());
        assertEquals(4.0, s.meanMicros(), 1e-9);
        assertEquals(2.0, s.p50Micros(), 1e-9);
        assertEquals(10.0, s.p99Micros(), 1e-9);
        assertEquals(10.0, s.p999Micros(), 1e-9);
    }

    @Test
    void theInputIsNotReordered() {
        long[] nanos = {3, 1, 2};
        LatencySummary.of(nanos);
        assertEquals(3, nanos[0]);
    }

    @Test
    void noSamplesIsTheEmptySummary() {
        assertSame(LatencySummary.EMPTY, LatencySummary.of(new long[] {-1, -1}));
        assertSame(LatencySummary.EMPTY, LatencySummary.of(new long[0]));
        assertEquals(0, LatencySummary.EMPTY.count());
    }

    @Test
    void percentileOutsideItsRangeOrOfNothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> LatencySummary.percentile(new long[] {1}, 0));
        assertThrows(IllegalArgumentException.class, () -> LatencySummary.percentile(new long[] {1}, 100.1));
        assertThrows(IllegalArgumentException.class, () -> LatencySummary.percentile(new long[] {1}, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> LatencySummary.percentile(new long[0], 50));
    }
}
