package org.rpcrdma4j.transport.spi;

import java.nio.ByteBuffer;

/**
 * ReadSink - local memory one RDMA READ places a piece of a read chunk into, and the
 * registration that lets the device write it.
 *
 * <p>Life cycle, driven by the transport on its completion thread:
 * {@link SinkPool#allocate()} → {@link #prepareRead} (the sink adds the registration, READ and
 * invalidation requests to the chain) → the transport posts the chain → every request of the
 * chain completes → {@link #readCompleted(boolean)} → the data is read through {@link #data()}
 * → {@link #free()}.
 *
 * <p>Threading: confined to the completion thread, except {@link #data()}, whose content MAY be
 * read by any thread that received it through a call hand-off. Ownership: the transport owns a
 * sink from allocation to {@link #free()}; the strategy MUST NOT reuse it before.
 */
public interface ReadSink {
    /** @return the pool the sink came from (and returns to) */
    SinkPool pool();

    /**
     * prepareRead() - add the work requests that read {@code length} bytes of the peer's memory
     * into this sink's bytes {@code [0, length)}.
     *
     * <p>Assumptions: {@code 0 < length <= pool().sinkLength()}; the chain is empty or holds the
     * requests of nothing else. The strategy adds exactly one {@code RDMA_READ} or
     * {@code RDMA_READ_WITH_INV}, optionally preceded by a {@code REG_MR} and followed by a
     * {@code LOCAL_INV}.
     *
     * @param chain where to add the requests
     * @param length the bytes to read
     * @param remoteAddress the peer's address (the segment offset, advanced for later pieces)
     * @param rkey the peer's key (the segment handle)
     * @return true when the chain is ready; false when the sink cannot be registered now (a
     *         user-space registration failed): the chain is then left empty and the caller frees
     *         the sink and fails the call
     */
    boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey);

    /**
     * readCompleted() - every request of the chain has completed (successfully or not).
     *
     * <p>A strategy that registered per request deregisters here; one whose fast registration
     * may be left valid by a failed chain recovers its region here.
     *
     * @param success true when every request of the chain succeeded
     */
    void readCompleted(boolean success);

    /**
     * @return a read-only view of the whole sink memory (position 0, capacity
     *         {@link SinkPool#sinkLength()}), the same object every time: callers MUST only
     *         take absolute slices of it and MUST NOT move its position or limit
     */
    ByteBuffer data();

    /** Returns the sink to its pool; the caller MUST NOT use it or views of it afterwards. */
    void free();
}
