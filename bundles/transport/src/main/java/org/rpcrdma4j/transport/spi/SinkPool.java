package org.rpcrdma4j.transport.spi;

/**
 * SinkPool - the READ sinks of one strategy on one protection domain.
 *
 * <p>Every sink has the same capacity, {@link #sinkLength()}; the transport splits read chunks
 * into READs no longer than that. Allocation never blocks and, in steady state, never allocates
 * Java objects: an exhausted pool answers null and the transport retries after a sink is freed.
 *
 * <p>Threading: confined to the transport's completion thread. Ownership: owned by whoever
 * created it; every sink taken MUST be {@link ReadSink#free() freed} before {@link #close()}.
 */
public interface SinkPool extends AutoCloseable {
    /** @return the strategy that created this pool */
    RegistrationStrategy strategy();

    /** @return the capacity of every sink in bytes: the most one READ may move */
    int sinkLength();

    /**
     * allocate() - take a free sink.
     *
     * @return a sink owned by the caller until {@link ReadSink#free()}, or null when none is free
     */
    ReadSink allocate();

    /** @return the number of sinks handed out and not yet freed */
    int outstanding();

    /** @return the number of sinks the pool holds in all */
    int capacity();

    /**
     * @return the registrations this pool holds with the device right now (memory regions and
     *         valid fast-registration keys), for leak checks
     */
    int liveRegistrations();

    /**
     * close() - release the pool's memory and registrations.
     *
     * <p>Assumptions: {@link #outstanding()} is 0 (no work request names pooled memory).
     *
     * @throws IllegalStateException when sinks are still outstanding (nothing is released then)
     */
    @Override
    void close();
}
