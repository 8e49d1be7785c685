package org.rpcrdma4j.shell;

import java.util.Arrays;

/**
 * LatencySummary - mean and nearest-rank percentiles of a set of call latencies, in
 * microseconds.
 *
 * <p>Percentiles are nearest-rank (the smallest sample such that at least p % of the samples are
 * at most it): the value printed was really measured, never interpolated. Immutable.
 *
 * @param count the samples summarised
 * @param meanMicros their mean
 * @param p50Micros the 50th percentile
 * @param p99Micros the 99th percentile
 * @param p999Micros the 99.9th percentile
 */
record LatencySummary(int count, double meanMicros, double p50Micros, double p99Micros, double p999Micros) {
    /** The summary of no samples: every figure NaN. */
    static final LatencySummary EMPTY = new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /**
     * of() - summarises latencies in nanoseconds.
     *
     * @param nanos the samples; negative entries are skipped (calls that have none); the array
     *        is not changed
     * @return the summary, {@link #EMPTY} when no sample is left
     */
    static LatencySummary of(long[] nanos) {
        long[] samples = Arrays.stream(nanos).filter(n -> n >= 0).sorted().toArray();
        if (samples.length == 0) {
            return EMPTY;
        }
        double sum = 0;
        for (long n : samples) {
            sum += n;
        }
        return new LatencySummary(samples.length, sum / samples.length / 1000.0, percentile(samples, 50.0) / 1000.0,
                percentile(samples, 99.0) / 1000.0, percentile(samples, 99.9) / 1000.0);
    }

    /**
     * percentile() - the nearest-rank percentile: the sample at rank ceil(p / 100 * n).
     *
     * <p>Assumptions: {@code sorted} is sorted ascending and not empty.
     *
     * @param sorted the samples
     * @param p the percentile, within (0, 100]
     * @return the sample at that rank
     * @throws IllegalArgumentException for p outside (0, 100] or no samples
     */
    static long percentile(long[] sorted, double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be within (0, 100]: " + p);
        }
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        // p * n / 100 computed on integers where possible, so 99.9 % of 1000 is rank 999, not 1000
        // through a rounding error of the double product.
        long rank = (long) Math.ceil(Math.round(p * 1000) * (long) sorted.length / 100_000.0);
        return sorted[(int) Math.max(1, Math.min(rank, sorted.length)) - 1];
    }
}
