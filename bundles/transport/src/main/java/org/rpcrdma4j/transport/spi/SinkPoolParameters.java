package org.rpcrdma4j.transport.spi;

/**
 * SinkPoolParameters - how a {@link SinkPool} is sized.
 *
 * @param sinkCount how many sinks the pool holds (the most READs in flight or held by calls at
 *        once, per protection domain)
 * @param maxSinkLength the most bytes one sink (so one READ) may hold; a strategy MAY choose
 *        less (see {@link SinkPool#sinkLength()})
 * @param pageSize the span of one scatter/gather element into pooled memory, a power of two; a
 *        strategy whose READs name sink memory page by page limits a READ to
 *        {@code maxReadSge * pageSize} bytes
 * @param maxReadSge the most SGEs the device accepts in one RDMA READ ({@code max_sge_rd}),
 *        also the SGE capacity of the work requests the transport hands to
 *        {@link ReadSink#prepareRead}
 */
public record SinkPoolParameters(int sinkCount, int maxSinkLength, int pageSize, int maxReadSge) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the parameter that is not positive, or a page size
     *         that is not a power of two
     */
    public SinkPoolParameters {
        positive("sinkCount", sinkCount);
        positive("maxSinkLength", maxSinkLength);
        positive("pageSize", pageSize);
        positive("maxReadSge", maxReadSge);
        if (Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("pageSize must be a power of two: " + pageSize);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }
}
