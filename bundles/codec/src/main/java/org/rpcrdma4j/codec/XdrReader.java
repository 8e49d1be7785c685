package org.rpcrdma4j.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * XdrReader - a reusable flyweight that reads XDR items in place from a ByteBuffer.
 *
 * <p>The reader never copies and never changes the wrapped buffer's position,
 * limit or byte order: it keeps its own cursor and limit, both absolute indices
 * into the buffer, and reads with absolute gets. Items are big-endian whatever
 * the buffer's order is (through big-endian VarHandle views, so no per-read
 * byte-order test and small methods the JIT inlines).
 *
 * <p>Bounds: every read checks the reader's limit first and throws
 * {@link BufferUnderflowException} past it. Callers on the hot path test
 * {@link #hasWords(long)} first, so that exception only reports a programming
 * error; the header decoder never lets it escape.
 *
 * <p>Ownership and threading: the reader borrows the buffer between
 * {@link #wrap} and the next {@code wrap}; it MUST NOT be shared between
 * threads. Wrapping allocates nothing.
 */
public final class XdrReader {

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private ByteBuffer buffer;
    private int position;
    private int limit;

    /**
     * wrap() - point the reader at {@code length} bytes of {@code buffer} from {@code offset}.
     *
     * @param buffer the buffer to read; its own position and limit are ignored
     * @param offset absolute index of the first byte to read
     * @param length number of readable bytes
     * @return this reader
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public XdrReader wrap(ByteBuffer buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.limit());
        this.buffer = buffer;
        this.position = offset;
        this.limit = offset + length;
        return this;
    }

    /** @return the wrapped buffer, or null before the first wrap */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return absolute index of the next byte to read */
    public int position() {
        return position;
    }

    /**
     * position() - move the cursor to an absolute index.
     *
     * @param index an index between the wrapped offset and the limit
     * @return this reader
     * @throws IndexOutOfBoundsException if {@code index} is past the limit or negative
     */
    public XdrReader position(int index) {
        Objects.checkIndex(index, limit + 1);
        position = index;
        return this;
    }

    /** @return absolute index one past the last readable byte */
    public int limit() {
        return limit;
    }

    /** @return bytes left between the cursor and the limit */
    public int remaining() {
        return limit - position;
    }

    /** @return whole XDR units left between the cursor and the limit */
    public int remainingWords() {
        return (limit - position) / Xdr.UNIT_BYTES;
    }

    /**
     * hasWords() - tell whether {@code words} whole units can still be read.
     *
     * @param words number of units wanted; any value, even negative or huge
     * @return true when that many units lie before the limit
     */
    public boolean hasWords(long words) {
        return words >= 0 && words <= remainingWords();
    }

    /**
     * readInt() - read one XDR int or unsigned int and advance by one unit.
     *
     * @return the 32 bits as a Java int (callers treat it as unsigned where XDR does)
     * @throws BufferUnderflowException when fewer than four bytes remain
     */
    public int readInt() {
        int index = position;
        if (index > limit - Xdr.UNIT_BYTES) {
            throw new BufferUnderflowException();
        }
        position = index + Xdr.UNIT_BYTES;
        return (int) INT.get(buffer, index);
    }

    /**
     * readUnsignedInt() - read one XDR unsigned int, widened without sign.
     *
     * @return a value from 0 to 2^32 - 1
     */
    public long readUnsignedInt() {
        return Integer.toUnsignedLong(readInt());
    }

    /**
     * readHyper() - read one XDR (unsigned) hyper integer and advance by two units.
     *
     * @return the 64 bits as a Java long
     * @throws BufferUnderflowException when fewer than eight bytes remain
     */
    public long readHyper() {
        int index = position;
        if (index > limit - Xdr.HYPER_BYTES) {
            throw new BufferUnderflowException();
        }
        position = index + Xdr.HYPER_BYTES;
        return (long) LONG.get(buffer, index);
    }

    /**
     * peekInt() - read the unit {@code words} units past the cursor without moving it.
     *
     * @param words distance from the cursor in units, not negative
     * @return the 32 bits found there
     * @throws BufferUnderflowException when that unit is not before the limit
     */
    public int peekInt(int words) {
        if (words < 0 || words >= remainingWords()) {
            throw new BufferUnderflowException();
        }
        return (int) INT.get(buffer, position + Xdr.wordsToBytes(words));
    }

    /**
     * skipWords() - advance the cursor by whole units.
     *
     * @param words number of units to skip
     * @throws BufferUnderflowException when fewer units remain
     */
    public void skipWords(int words) {
        if (!hasWords(words)) {
            throw new BufferUnderflowException();
        }
        position += Xdr.wordsToBytes(words);
    }

    /**
     * skipOpaque() - step over fixed-length opaque data and its padding, in place.
     *
     * <p>This is the allocation-free way to reach opaque data: the caller reads
     * the returned range of the wrapped buffer directly.
     *
     * @param length the opaque length in bytes, not negative
     * @return absolute index of the first data byte
     * @throws BufferUnderflowException when the data and padding do not fit
     */
    public int skipOpaque(int length) {
        long padded = Xdr.roundUp(Integer.toUnsignedLong(length));
        if (length < 0 || padded > remaining()) {
            throw new BufferUnderflowException();
        }
        int start = position;
        position += (int) padded;
        return start;
    }

    /**
     * readOpaque() - view fixed-length opaque data as a slice, without copying.
     *
     * <p>Allocates one ByteBuffer view object (never the data); hot paths use
     * {@link #skipOpaque(int)} instead.
     *
     * @param length the opaque length in bytes
     * @return a big-endian slice sharing the wrapped buffer's content
     */
    public ByteBuffer readOpaque(int length) {
        int start = skipOpaque(length);
        return buffer.slice(start, length).order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * readVariableOpaque() - view variable-length opaque data (length word, data, padding).
     *
     * @param maxLength largest length accepted, the XDR {@code opaque<max>} bound
     * @return a slice over the data, without the padding
     * @throws BufferUnderflowException when the length exceeds {@code maxLength}
     *         or the data does not fit before the limit; the cursor is then unchanged
     */
    public ByteBuffer readVariableOpaque(int maxLength) {
        int start = position;
        long length = readUnsignedInt();
        if (length > maxLength || Xdr.roundUp(length) > remaining()) {
            position = start;
            throw new BufferUnderflowException();
        }
        return readOpaque((int) length);
    }
}
