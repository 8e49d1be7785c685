package org.rpcrdma4j.codec;

import java.util.Arrays;
import java.util.Objects;

/**
 * ReadList - the parsed read list of a call: read chunks grouped by position (RFC 8166 §3.4.5, §4.3.1).
 *
 * <p>On the wire a read list is a flat chain of items, each a position and a
 * segment. Items with equal position form one read chunk, their segments in
 * list order; chunks are kept sorted by position whatever order the items
 * arrived in (as Linux's parsed chunk list does). Chunk 0 is the
 * <em>position-zero chunk</em> when its position is 0: in an RDMA_NOMSG call it
 * carries the whole RPC message (RFC 8166 §3.5.3).
 *
 * <p><b>Positions and inline offsets.</b> A position is an XDR offset in the
 * reconstructed call: the inline pieces plus the chunk data, where each chunk
 * occupies {@link #paddedLength(int)} bytes because the receiver adds the XDR
 * round-up (RFC 8166 §3.4.5.2). The decoder therefore computes for every
 * chunk the offset in the <em>inline stream</em> where its data is inserted:
 * {@code inlineOffset(k) = position(k) - sum of paddedLength(j)} over the
 * earlier chunks j that are not the position-zero chunk. The inline stream is
 * the RPC body after the transport header for RDMA_MSG, and the data of the
 * position-zero chunk for RDMA_NOMSG. A transport rebuilds the call as: inline
 * bytes {@code [0, inlineOffset(first))}, chunk data, round-up zeros, inline
 * bytes up to the next chunk's inline offset, and so on, then the inline tail.
 * For the position-zero chunk itself {@code inlineOffset} is 0.
 *
 * <p>Ownership: filled by {@link HeaderDecoder} into a reused
 * {@link ParsedHeader}; the arrays are sized once from {@link RpcRdmaLimits}.
 */
public final class ReadList {

    private final SegmentList segments;
    private int[] itemPosition;
    private final int[] chunkPosition;
    private final int[] chunkFirst;
    private final int[] chunkSegments;
    private final long[] chunkLength;
    private final long[] chunkInlineOffset;
    private int chunkCount;

    ReadList(RpcRdmaLimits limits) {
        int items = limits.maxReadSegments();
        int chunks = limits.maxReadChunks();
        this.segments = new SegmentList(items);
        this.itemPosition = new int[Math.min(items, SegmentList.INITIAL_SLOTS)];
        this.chunkPosition = new int[chunks];
        this.chunkFirst = new int[chunks];
        this.chunkSegments = new int[chunks];
        this.chunkLength = new long[chunks];
        this.chunkInlineOffset = new long[chunks];
    }

    /** @return most chunks this list can hold */
    public int chunkCapacity() {
        return chunkPosition.length;
    }

    /** @return number of read chunks (distinct positions) */
    public int chunkCount() {
        return chunkCount;
    }

    /** @return true when the read list is empty */
    public boolean isEmpty() {
        return chunkCount == 0;
    }

    /** @return true when chunk 0 has position 0 */
    public boolean hasPositionZeroChunk() {
        return chunkCount > 0 && chunkPosition[0] == 0;
    }

    /** @return the segments of every chunk, chunk by chunk in position order */
    public SegmentList segments() {
        return segments;
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return its XDR position, a multiple of 4 */
    public long position(int chunk) {
        return Integer.toUnsignedLong(chunkPosition[Objects.checkIndex(chunk, chunkCount)]);
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return index of its first segment in {@link #segments()} */
    public int firstSegment(int chunk) {
        return chunkFirst[Objects.checkIndex(chunk, chunkCount)];
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return its number of segments, at least one */
    public int segmentCount(int chunk) {
        return chunkSegments[Objects.checkIndex(chunk, chunkCount)];
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return bytes to pull: the sum of its segment lengths */
    public long chunkLength(int chunk) {
        return chunkLength[Objects.checkIndex(chunk, chunkCount)];
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return bytes it occupies in the call: its length rounded up to 4 */
    public long paddedLength(int chunk) {
        return Xdr.roundUp(chunkLength(chunk));
    }

    /** @param chunk 0 to {@code chunkCount() - 1} @return where its data goes in the inline stream (see class comment) */
    public long inlineOffset(int chunk) {
        return chunkInlineOffset[Objects.checkIndex(chunk, chunkCount)];
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

    /** @return bytes named by all read chunks together, without round-up */
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

    /**
     * insertItem() - add one wire item, keeping items sorted by position and,
     * among equal positions, in arrival order.
     *
     * <p>Assumptions: the counting pass proved there is room; {@code position}
     * is a multiple of 4. Cost is linear in the items already held (already
     * sorted input costs one comparison), bounded by
     * {@link RpcRdmaLimits#MAX_COUNT}.
     */
    void insertItem(int position, int handle, int length, long offset) {
        int index = segments.count();
        if (index == itemPosition.length) { // grows with the segments, which bound it
            itemPosition = Arrays.copyOf(itemPosition, (int) Math.min(segments.capacity(), 2L * index));
        }
        while (index > 0 && Integer.compareUnsigned(itemPosition[index - 1], position) > 0) {
            itemPosition[index] = itemPosition[index - 1];
            index--;
        }
        itemPosition[index] = position;
        if (index == segments.count()) {
            segments.add(handle, length, offset);
        } else {
            segments.insert(index, handle, length, offset);
        }
    }

    /**
     * groupChunks() - turn the sorted items into chunks, one per distinct position.
     *
     * @return false when there are more distinct positions than the chunk capacity
     */
    boolean groupChunks() {
        chunkCount = 0;
        int items = segments.count();
        for (int i = 0; i < items; i++) {
            if (chunkCount == 0 || itemPosition[i] != chunkPosition[chunkCount - 1]) {
                if (chunkCount == chunkPosition.length) {
                    return false;
                }
                chunkPosition[chunkCount] = itemPosition[i];
                chunkFirst[chunkCount] = i;
                chunkSegments[chunkCount] = 0;
                chunkLength[chunkCount] = 0;
                chunkInlineOffset[chunkCount] = 0;
                chunkCount++;
            }
            chunkSegments[chunkCount - 1]++;
            chunkLength[chunkCount - 1] += segments.length(i);
        }
        return true;
    }

    void setInlineOffset(int chunk, long inlineOffset) {
        chunkInlineOffset[chunk] = inlineOffset;
    }

    boolean contentEquals(ReadList other) {
        if (chunkCount != other.chunkCount) {
            return false;
        }
        for (int c = 0; c < chunkCount; c++) {
            if (chunkPosition[c] != other.chunkPosition[c]
                    || chunkSegments[c] != other.chunkSegments[c]
                    || chunkInlineOffset[c] != other.chunkInlineOffset[c]
                    || !segments.contentEquals(chunkFirst[c], other.segments, other.chunkFirst[c], chunkSegments[c])) {
                return false;
            }
        }
        return true;
    }

    void appendTo(StringBuilder sb) {
        for (int c = 0; c < chunkCount; c++) {
            sb.append(c == 0 ? "" : ", ").append(Integer.toUnsignedString(chunkPosition[c]))
                    .append("->").append(chunkInlineOffset[c]).append('[');
            segments.appendTo(sb, chunkFirst[c], chunkSegments[c]);
            sb.append(']');
        }
    }
}
