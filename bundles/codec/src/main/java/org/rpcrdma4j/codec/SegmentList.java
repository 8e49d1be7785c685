package org.rpcrdma4j.codec;

import java.util.Arrays;
import java.util.Objects;

/**
 * SegmentList - a bounded, reusable array of RDMA segments (RFC 8166 §3.4.3).
 *
 * <p>A segment names {@code length} bytes of the peer's registered memory at
 * {@code offset} under the steering tag {@code handle}. Storage is three
 * parallel primitive arrays that start at {@link #INITIAL_SLOTS} and double on
 * demand up to the list's {@link #capacity()} (the decoder's limit), then keep
 * their size while the holder is reused: a pooled header sized for the limits
 * costs a few hundred bytes until a peer actually sends many segments, and
 * steady-state filling and clearing allocate nothing. Lengths are XDR unsigned
 * ints and come back widened to long so no caller meets a negative length.
 *
 * <p>Ownership: a list belongs to the {@link ParsedHeader} (or the list) that
 * created it; only the decoder in this package fills it. Readers MUST NOT keep
 * values across the next decode into the same header.
 */
public final class SegmentList {

    /** Slots allocated at first: what ordinary calls and replies use (one segment per chunk is typical). */
    static final int INITIAL_SLOTS = 8;

    private final int capacity;
    private int[] handles;
    private int[] lengths;
    private long[] offsets;
    private int count;
    private long totalLength;

    SegmentList(int capacity) {
        this.capacity = capacity;
        int slots = Math.min(capacity, INITIAL_SLOTS);
        this.handles = new int[slots];
        this.lengths = new int[slots];
        this.offsets = new long[slots];
    }

    /** makeRoom() - one more slot, growing the arrays (doubling, at most to the capacity) when full. */
    private void makeRoom() {
        if (count < handles.length) {
            return;
        }
        if (count >= capacity) {
            throw new IllegalStateException("a segment list of capacity " + capacity + " is full");
        }
        int slots = (int) Math.min(capacity, 2L * handles.length);
        handles = Arrays.copyOf(handles, slots);
        lengths = Arrays.copyOf(lengths, slots);
        offsets = Arrays.copyOf(offsets, slots);
    }

    /** @return most segments this list can hold, fixed at construction (its arrays grow to it on demand) */
    public int capacity() {
        return capacity;
    }

    /** @return number of segments held */
    public int count() {
        return count;
    }

    /** @return true when no segment is held */
    public boolean isEmpty() {
        return count == 0;
    }

    /**
     * handle() - steering tag of a segment.
     *
     * @param index 0 to {@code count() - 1}
     * @return the 32-bit handle (R_key)
     */
    public int handle(int index) {
        return handles[Objects.checkIndex(index, count)];
    }

    /**
     * length() - length of a segment in bytes.
     *
     * @param index 0 to {@code count() - 1}
     * @return 0 to 2^32 - 1
     */
    public long length(int index) {
        return Integer.toUnsignedLong(lengths[Objects.checkIndex(index, count)]);
    }

    /**
     * offset() - remote address (or offset) of a segment.
     *
     * @param index 0 to {@code count() - 1}
     * @return the 64-bit offset as sent
     */
    public long offset(int index) {
        return offsets[Objects.checkIndex(index, count)];
    }

    /** @return sum of all segment lengths, as 64 bits so it cannot wrap */
    public long totalLength() {
        return totalLength;
    }

    void clear() {
        count = 0;
        totalLength = 0;
    }

    /**
     * add() - append a segment.
     *
     * <p>Assumptions: the counting pass has proven there is room.
     */
    void add(int handle, int length, long offset) {
        makeRoom();
        int index = count;
        handles[index] = handle;
        lengths[index] = length;
        offsets[index] = offset;
        count = index + 1;
        totalLength += Integer.toUnsignedLong(length);
    }

    /**
     * insert() - put a segment at {@code index}, shifting later ones up by one.
     *
     * <p>Assumptions: {@code 0 <= index <= count() < capacity()}.
     */
    void insert(int index, int handle, int length, long offset) {
        makeRoom();
        int tail = count - index;
        System.arraycopy(handles, index, handles, index + 1, tail);
        System.arraycopy(lengths, index, lengths, index + 1, tail);
        System.arraycopy(offsets, index, offsets, index + 1, tail);
        handles[index] = handle;
        lengths[index] = length;
        offsets[index] = offset;
        count++;
        totalLength += Integer.toUnsignedLong(length);
    }

    /**
     * contentEquals() - compare a range of this list with a range of another.
     *
     * @return true when both ranges hold the same segments in the same order
     */
    boolean contentEquals(int from, SegmentList other, int otherFrom, int n) {
        for (int i = 0; i < n; i++) {
            if (handles[from + i] != other.handles[otherFrom + i]
                    || lengths[from + i] != other.lengths[otherFrom + i]
                    || offsets[from + i] != other.offsets[otherFrom + i]) {
                return false;
            }
        }
        return true;
    }

    void appendTo(StringBuilder sb, int from, int n) {
        for (int i = from; i < from + n; i++) {
            sb.append(i == from ? "" : ", ")
                    .append(Integer.toHexString(handles[i])).append(':')
                    .append(Integer.toUnsignedString(lengths[i])).append('@')
                    .append(Long.toHexString(offsets[i]));
        }
    }
}
