package org.rpcrdma4j.binding.nfs.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.Xdr;

/**
 * XdrSteps - bounds-checked steps over the XDR items (RFC 4506) of an encoded result, with
 * absolute gets and no allocation.
 *
 * <p>Assumptions: every offset is relative to {@code base}, the result's first byte in
 * {@code buffer}, and the result has {@code available} bytes from there; the caller took both
 * from the buffer's position and remaining, so {@code base + available} cannot overflow.
 *
 * <p>Every step returns the offset after the item, or {@link #NONE} when the item does not lie
 * within the available bytes or is malformed (a negative length). A step given {@link #NONE}
 * returns {@link #NONE}, so steps chain without a check between them. Lengths are added in
 * {@code long}, so no length, however large, wraps an offset around.
 */
public final class XdrSteps {
    /** No offset: the item is missing, malformed or beyond the result. */
    public static final int NONE = -1;
    /** An XDR word: int, unsigned int, enum, bool, and every length or count. */
    public static final int WORD_BYTES = 4;

    private XdrSteps() {
    }

    /** @return whether {@code bytes} bytes from {@code offset} lie within the result (false for NONE) */
    public static boolean fits(int available, int offset, long bytes) {
        return offset >= 0 && bytes >= 0 && offset + bytes <= available;
    }

    /**
     * readWord() - the XDR word at {@code offset}.
     *
     * <p>Assumptions: the caller checked {@code fits(available, offset, WORD_BYTES)}.
     */
    public static int readWord(ByteBuffer buffer, int base, int offset) {
        return buffer.getInt(base + offset);
    }

    /** skipBytes() - steps over {@code bytes} fixed bytes (a fixed-size structure). */
    public static int skipBytes(int available, int offset, long bytes) {
        return fits(available, offset, bytes) ? (int) (offset + bytes) : NONE;
    }

    /** skipOpaque() - steps over a variable-length opaque or string: length word, bytes, round-up. */
    public static int skipOpaque(ByteBuffer buffer, int base, int available, int offset) {
        if (!fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int length = readWord(buffer, base, offset);
        return length < 0 ? NONE : skipBytes(available, offset + WORD_BYTES, Xdr.roundUp(length));
    }

    /** skipWordArray() - steps over a variable-length array of words (a bitmap4): count, words. */
    public static int skipWordArray(ByteBuffer buffer, int base, int available, int offset) {
        if (!fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int count = readWord(buffer, base, offset);
        return count < 0 ? NONE : skipBytes(available, offset + WORD_BYTES, (long) count * WORD_BYTES);
    }

    /**
     * checkItem() - the offset of a DDP-eligible item's length word, if the item lies whole
     * within the result.
     *
     * @return {@code offset}, when its length word and that many bytes after it are within the
     *         result (the XDR round-up is not required); NONE otherwise
     */
    public static int checkItem(ByteBuffer buffer, int base, int available, int offset) {
        if (!fits(available, offset, WORD_BYTES)) {
            return NONE;
        }
        int length = readWord(buffer, base, offset);
        return fits(available, offset + WORD_BYTES, length) ? offset : NONE;
    }
}
