package org.rpcrdma4j.testing.rawpeer;

import org.rpcrdma4j.verbs.MemoryRegion;

/**
 * PeerMemory - the chunk memory of a {@link RawPeer}: the source region, whose bytes the server
 * pulls with RDMA READs for read chunks, and the sink region, which the server fills with RDMA
 * WRITEs for write and reply chunks. Addresses and keys here are what a peer puts in its chunk
 * lists' segments.
 *
 * <p>Threading and ownership as the peer's: one thread at a time; the regions belong to the
 * peer's {@link PeerResources} and are released with the peer. A region the peer's
 * {@link PeerShape} has no bytes for is absent, and using it is an {@link IllegalStateException}.
 */
public final class PeerMemory {
    private final PeerShape shape;
    private final MemoryRegion sourceRegion;
    private final MemoryRegion sinkRegion;
    private int sourceUsed;

    PeerMemory(PeerShape shape, MemoryRegion source, MemoryRegion sink) {
        this.shape = shape;
        this.sourceRegion = source;
        this.sinkRegion = sink;
    }

    // ---- the source region: chunk data the server READs ----

    /**
     * exposeChunk() - copy chunk data into the source region after what earlier calls placed
     * (64-byte aligned, starting over at the beginning when the region is full).
     *
     * @return the address of the first byte (a segment's offset); its handle is {@link #rkey()}
     */
    public long exposeChunk(byte[] data, int from, int length) {
        MemoryRegion region = source();
        int at = (sourceUsed + 63) & ~63;
        if (at + length > region.length()) {
            at = 0;
        }
        region.buffer().put(at, data, from, length);
        sourceUsed = at + length + 64;
        return region.addressOf(at);
    }

    /**
     * exposeAt() - copy chunk data to byte {@code at} of the source region.
     *
     * @return the address of byte {@code at}
     * @throws IndexOutOfBoundsException when the data does not fit there
     */
    public long exposeAt(int at, byte[] data, int from, int length) {
        MemoryRegion region = source();
        region.buffer().put(at, data, from, length);
        return region.addressOf(at);
    }

    /** @return the address of byte {@code at} of the source region, unchecked (a hostile peer may point anywhere) */
    public long sourceAddress(int at) {
        return source().address() + at;
    }

    /** @return the source region's rkey */
    public int rkey() {
        return source().rkey();
    }

    /** resetSource() - chunk data may be overwritten from the start again. */
    public void resetSource() {
        sourceUsed = 0;
    }

    private MemoryRegion source() {
        if (sourceRegion == null) {
            throw new IllegalStateException("no source region in " + shape);
        }
        return sourceRegion;
    }

    // ---- the sink region: where the server WRITEs write and reply chunks ----

    /** @return the rkey of the region the server may WRITE into */
    public int sinkRkey() {
        return sink().rkey();
    }

    /** @return the address of byte {@code at} of the sink region, unchecked (a hostile peer may point anywhere) */
    public long sinkAddress(int at) {
        return sink().address() + at;
    }

    /** @return a copy of {@code length} bytes at {@code at} of the sink region */
    public byte[] sinkBytes(int at, int length) {
        byte[] b = new byte[length];
        sink().buffer().get(at, b);
        return b;
    }

    private MemoryRegion sink() {
        if (sinkRegion == null) {
            throw new IllegalStateException("no sink region in " + shape);
        }
        return sinkRegion;
    }
}
