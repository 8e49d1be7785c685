package org.rpcrdma4j.binding.nfs.support;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.rpcrdma4j.codec.Xdr;

/**
 * XdrWriter - a tiny XDR encoder (RFC 4506) for hand-built results: words, hypers, fixed and
 * variable opaques with their round-up, and {@link #size()} to note where an item's length word
 * lands, so tests compute expected offsets from the encoding instead of hard-coding them.
 */
public final class XdrWriter {
    private byte[] bytes = new byte[64];
    private int size;

    /** Appends a 32-bit word (int, unsigned int, enum, length, count). */
    public XdrWriter word(int value) {
        ensure(4);
        bytes[size++] = (byte) (value >>> 24);
        bytes[size++] = (byte) (value >>> 16);
        bytes[size++] = (byte) (value >>> 8);
        bytes[size++] = (byte) value;
        return this;
    }

    /** Appends several words. */
    public XdrWriter words(int... values) {
        for (int value : values) {
            word(value);
        }
        return this;
    }

    /** Appends a bool (1 or 0). */
    public XdrWriter bool(boolean value) {
        return word(value ? 1 : 0);
    }

    /** Appends a 64-bit hyper. */
    public XdrWriter hyper(long value) {
        return word((int) (value >>> 32)).word((int) value);
    }

    /** Appends a fixed-length opaque of {@code length} bytes (a counting pattern), rounded up. */
    public XdrWriter fixed(int length) {
        ensure(length + 3);
        for (int i = 0; i < length; i++) {
            bytes[size++] = (byte) (i + 1);
        }
        size += Xdr.padding(length);
        return this;
    }

    /** Appends a variable-length opaque: length word, bytes, zero round-up. */
    public XdrWriter opaque(byte[] data) {
        word(data.length);
        ensure(data.length + 3);
        System.arraycopy(data, 0, bytes, size, data.length);
        size += data.length + Xdr.padding(data.length);
        return this;
    }

    /** @return the bytes written so far: the offset the next item will have */
    public int size() {
        return size;
    }

    /** @return a copy of the encoding */
    public byte[] toBytes() {
        return Arrays.copyOf(bytes, size);
    }

    /** @return the encoding in a buffer of its own, position 0, limit = size */
    public ByteBuffer toBuffer() {
        return ByteBuffer.wrap(toBytes());
    }

    /**
     * @return the encoding at position {@code prefix} of a larger buffer: {@code prefix} bytes of
     *         0xEE before it and {@code suffix} bytes of 0xEE after its limit, which a correct
     *         reader never looks at
     */
    public ByteBuffer toBuffer(int prefix, int suffix) {
        byte[] framed = new byte[prefix + size + suffix];
        Arrays.fill(framed, (byte) 0xEE);
        System.arraycopy(bytes, 0, framed, prefix, size);
        return ByteBuffer.wrap(framed).position(prefix).limit(prefix + size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
