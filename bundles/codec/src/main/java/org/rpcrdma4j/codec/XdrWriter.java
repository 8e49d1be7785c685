package org.rpcrdma4j.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * XdrWriter - a reusable flyweight that writes XDR items into a caller-provided ByteBuffer.
 *
 * <p>Like {@link XdrReader} it keeps its own absolute cursor and limit, writes
 * with absolute puts (big-endian whatever the buffer's order), and never touches
 * the buffer's position, limit or order.
 *
 * <p>Bounds: a write that would cross the limit throws
 * {@link BufferOverflowException} before writing anything. Encoders compute
 * header sizes up front, so this only reports a caller that passed too small a
 * buffer.
 *
 * <p>Ownership and threading: the writer borrows the buffer until the next
 * {@link #wrap}; it MUST NOT be shared between threads.
 */
public final class XdrWriter {

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private ByteBuffer buffer;
    private int start;
    private int position;
    private int limit;

    /**
     * wrap() - point the writer at {@code length} bytes of {@code buffer} from {@code offset}.
     *
     * @param buffer a writable buffer
     * @param offset absolute index of the first byte to write
     * @param length number of bytes available
     * @return this writer
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's capacity
     */
    public XdrWriter wrap(ByteBuffer buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.capacity());
        this.buffer = buffer;
        this.start = offset;
        this.position = offset;
        this.limit = offset + length;
        return this;
    }

    /** @return absolute index of the next byte to write */
    public int position() {
        return position;
    }

    /** @return bytes written since {@link #wrap} */
    public int length() {
        return position - start;
    }

    /** @return bytes still available before the limit */
    public int remaining() {
        return limit - position;
    }

    /**
     * writeInt() - write one XDR int or unsigned int.
     *
     * @param value the 32 bits to write
     * @return this writer
     * @throws BufferOverflowException when fewer than four bytes remain
     */
    public XdrWriter writeInt(int value) {
        int index = position;
        if (index > limit - Xdr.UNIT_BYTES) {
            throw new BufferOverflowException();
        }
        position = index + Xdr.UNIT_BYTES;
        INT.set(buffer, index, value);
        return this;
    }

    /**
     * writeHyper() - write one XDR (unsigned) hyper integer.
     *
     * @param value the 64 bits to write
     * @return this writer
     * @throws BufferOverflowException when fewer than eight bytes remain
     */
    public XdrWriter writeHyper(long value) {
        int index = position;
        if (index > limit - Xdr.HYPER_BYTES) {
            throw new BufferOverflowException();
        }
        position = index + Xdr.HYPER_BYTES;
        LONG.set(buffer, index, value);
        return this;
    }

    /**
     * writeOpaque() - copy fixed-length opaque data and append its zero padding.
     *
     * @param source the bytes from its position to its limit; its position is not changed
     * @return this writer
     * @throws BufferOverflowException when data and padding do not fit
     */
    public XdrWriter writeOpaque(ByteBuffer source) {
        int length = source.remaining();
        ensure(Xdr.roundUp(length));
        buffer.put(position, source, source.position(), length);
        position += length;
        for (int pad = Xdr.padding(length); pad > 0; pad--) {
            buffer.put(position++, (byte) 0);
        }
        return this;
    }

    /**
     * writeVariableOpaque() - write a length word, the data and its padding.
     *
     * @param source the bytes from its position to its limit; its position is not changed
     * @return this writer
     * @throws BufferOverflowException when the whole item does not fit
     */
    public XdrWriter writeVariableOpaque(ByteBuffer source) {
        ensure(Xdr.UNIT_BYTES + Xdr.roundUp(source.remaining()));
        writeInt(source.remaining());
        return writeOpaque(source);
    }

    private void ensure(long bytes) {
        if (bytes > limit - position) {
            throw new BufferOverflowException();
        }
    }
}
