package org.rpcrdma4j.codec;

import java.util.Objects;

/**
 * WriteList - the parsed write list of a header: write chunks and their segments (RFC 8166 §4.3.2).
 *
 * <p>Write chunks keep the order of the wire: the Nth chunk receives the Nth
 * DDP-eligible result of the reply. Segments of all chunks are stored back to
 * back in one {@link SegmentList}; chunk {@code c} owns
 * {@code segmentCount(c)} of them from {@code firstSegment(c)}. Write chunks
 * carry no XDR round-up (RFC 8166 §3.4.6), so {@link #chunkLength(int)} is the
 * plain sum of the segment lengths.
 *
 * <p>Ownership: filled by {@link HeaderDecoder} into a reused
 * {@link ParsedHeader}; the arrays are sized once from {@link RpcRdmaLimits}.
 */
public final class WriteList {

    private final SegmentList segments;
    private final int[] chunkFirst;
    private final int[] chunkSegments;
    private final long[] chunkLength;
    private int chunkCount;

    WriteList(RpcRdmaLimits limits) {
        int chunks = limits.maxWriteChunks();
        this.segments = new SegmentList(chunks * limits.maxSegmentsPerChunk());
        this.chunkFirst = new int[chunks];
        this.chunkSegments = new int[chunks];
        this.chunkLength = new long[chunks];
    }

    /** @return most chunks this list can hold */
    public int chunkCapacity() {
        return chunkFirst.length;
    }

    /** @return number of write chunks */
    public int chunkCount() {
        return chunkCount;
    }

    /** @return true when the write list is empty */
    public boolean isEmpty() {
        return chunkCount == 0;
    }

    /** @return the segments of every chunk, back to back in wire order */
    public SegmentList segments() {
        return segments;
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return index of its first segment in {@link #segments()} */
    public int firstSegment(int chunk) {
        return chunkFirst[Objects.checkIndex(chunk, chunkCount)];
    }

    /**
     * segmentCount() - segments of a chunk.
     *
     * @param chunk 0 to {@code chunkCount() - 1}
     * @return at least one in a call; zero only for an unused chunk returned
     *         empty in a reply (accepted by a {@link HeaderDecoder.Role#REQUESTER})
     */
    public int segmentCount(int chunk) {
        return chunkSegments[Objects.checkIndex(chunk, chunkCount)];
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return bytes the chunk can receive */
    public long chunkLength(int chunk) {
        return chunkLength[Objects.checkIndex(chunk, chunkCount)];
    }

    /** @return the handle of segment {@code segment} of chunk {@code chunk} */
    public int handle(int chunk, int segment) {
        return segments.handle(segmentIndex(chunk, segment));
    }

    /** @return the length of segment {@code segment} of chunk {@code chunk} */
    public long length(int chunk, int segment) {
        return segments.length(segmentIndex(chunk, segment));
    }

    /** @return the offset of segment {@code segment} of chunk {@code chunk} */
    public long offset(int chunk, int segment) {
        return segments.offset(segmentIndex(chunk, segment));
    }

    /** @return bytes named by all write chunks together */
    public long totalLength() {
        return segments.totalLength();
    }

    private int segmentIndex(int chunk, int segment) {
        return firstSegment(chunk) + Objects.checkIndex(segment, chunkSegments[chunk]);
    }

    void clear() {
        segments.clear();
        chunkCount = 0;
    }

    /** beginChunk() - open a new chunk; assumes the counting pass proved there is room. */
    void beginChunk() {
        chunkFirst[chunkCount] = segments.count();
        chunkSegments[chunkCount] = 0;
        chunkLength[chunkCount] = 0;
        chunkCount++;
    }

    /** addSegment() - append a segment to the chunk opened last. */
    void addSegment(int handle, int length, long offset) {
        segments.add(handle, length, offset);
        chunkSegments[chunkCount - 1]++;
        chunkLength[chunkCount - 1] += Integer.toUnsignedLong(length);
    }

    boolean contentEquals(WriteList other) {
        if (chunkCount != other.chunkCount) {
            return false;
        }
        for (int c = 0; c < chunkCount; c++) {
            if (chunkSegments[c] != other.chunkSegments[c]
                    || !segments.contentEquals(chunkFirst[c], other.segments, other.chunkFirst[c], chunkSegments[c])) {
                return false;
            }
        }
        return true;
    }

    void appendTo(StringBuilder sb) {
        for (int c = 0; c < chunkCount; c++) {
            sb.append(c == 0 ? "" : ", ").append('[');
            segments.appendTo(sb, chunkFirst[c], chunkSegments[c]);
            sb.append(']');
        }
    }
}
