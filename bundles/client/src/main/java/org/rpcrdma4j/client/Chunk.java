package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

/**
 * One registered chunk of a call: {@code length} bytes of its memory from buffer index 0,
 * advertised as segments of at most {@code maxSegmentLength} bytes under the memory's handle.
 *
 * <p>Immutable. The memory is owned by the {@link PreparedCall} that registered it.
 *
 * @param memory the registered memory; the chunk starts at its buffer index 0
 * @param length the chunk's length in bytes, positive
 * @param maxSegmentLength the longest segment advertised, positive
 * @param position the read chunk's XDR position (0 for write and reply chunks)
 */
record Chunk(ChunkMemory memory, int length, int maxSegmentLength, int position) {

    /**
     * @param length a chunk length
     * @param maxSegmentLength the longest segment
     * @return how many segments advertise it
     */
    static int segmentCount(int length, int maxSegmentLength) {
        return (int) ((length + (long) maxSegmentLength - 1) / maxSegmentLength);
    }

    /** @return the number of segments */
    int segmentCount() {
        return segmentCount(length, maxSegmentLength);
    }

    /**
     * @param segment a segment index
     * @return the segment's first byte within the chunk
     */
    int segmentStart(int segment) {
        return segment * maxSegmentLength;
    }

    /**
     * @param segment a segment index
     * @return the segment's length
     */
    int segmentLength(int segment) {
        return Math.min(maxSegmentLength, length - segmentStart(segment));
    }

    /**
     * @param segment a segment index
     * @return the segment's virtual address (the RPC-over-RDMA offset)
     */
    long segmentAddress(int segment) {
        return memory.address() + segmentStart(segment);
    }

    /** @return the remote key (the segment handle) */
    int handle() {
        return memory.handle();
    }

    /** @return the chunk's memory, index 0 its first byte */
    ByteBuffer buffer() {
        return memory.buffer();
    }
}
