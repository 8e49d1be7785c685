package org.rpcrdma4j.codec;

/**
 * Sizes and alignment rules of XDR (RFC 4506).
 *
 * <p>XDR encodes every item in big-endian units of four bytes; variable-length
 * and fixed-length opaque data are followed by zero bytes up to the next unit
 * boundary (RFC 4506 §3.9, §3.10). This class only holds those arithmetic rules,
 * so readers, writers and the RPC-over-RDMA code state sizes in one vocabulary.
 */
public final class Xdr {

    /** Bytes in one XDR unit (RFC 4506 §3: "multiples of four bytes"). */
    public static final int UNIT_BYTES = 4;

    /** Bytes of an XDR hyper (unsigned) integer, two units (RFC 4506 §4.5). */
    public static final int HYPER_BYTES = 2 * UNIT_BYTES;

    private Xdr() {
    }

    /**
     * roundUp() - round a byte count up to the next XDR unit boundary.
     *
     * <p>Assumptions: {@code bytes} is not negative and at most
     * {@code Long.MAX_VALUE - 3}.
     *
     * @param bytes a byte count
     * @return the smallest multiple of {@link #UNIT_BYTES} not below {@code bytes}
     */
    public static long roundUp(long bytes) {
        return (bytes + (UNIT_BYTES - 1)) & ~(long) (UNIT_BYTES - 1);
    }

    /**
     * padding() - number of zero bytes XDR appends after opaque data.
     *
     * @param length the length of the opaque data in bytes, not negative
     * @return 0 to 3
     */
    public static int padding(int length) {
        return (UNIT_BYTES - (length & (UNIT_BYTES - 1))) & (UNIT_BYTES - 1);
    }

    /**
     * isAligned() - tell whether a byte offset or length is a whole number of units.
     *
     * @param bytes an offset or length in bytes
     * @return true when {@code bytes} is a multiple of {@link #UNIT_BYTES}
     */
    public static boolean isAligned(long bytes) {
        return (bytes & (UNIT_BYTES - 1)) == 0;
    }

    /**
     * wordsToBytes() - size in bytes of a number of XDR units.
     *
     * @param words a number of units, not negative and below 2^29
     * @return {@code words * 4}
     */
    public static int wordsToBytes(int words) {
        return words * UNIT_BYTES;
    }

    /**
     * intAt() - the big-endian int at {@code offset} of a message held in several views (an RPC
     * body in receive buffers and READ sinks), read across view boundaries; each view from its
     * position to its limit, nothing moved.
     *
     * @param views the message's views in order
     * @param offset the int's byte offset in the whole message; the caller knows 4 bytes are there
     * @return the value
     */
    public static int intAt(java.util.List<java.nio.ByteBuffer> views, int offset) {
        // The usual case, a call's header words in its first view (the receive buffer): one
        // load. Only a word that straddles two views is put together byte by byte.
        java.nio.ByteBuffer first = views.isEmpty() ? null : views.get(0);
        if (first != null && offset >= 0 && offset <= first.remaining() - UNIT_BYTES) {
            int word = first.getInt(first.position() + offset);
            return first.order() == java.nio.ByteOrder.BIG_ENDIAN ? word : Integer.reverseBytes(word);
        }
        int value = 0;
        int need = UNIT_BYTES;
        int skip = offset;
        for (int i = 0; i < views.size() && need > 0; i++) {
            java.nio.ByteBuffer view = views.get(i);
            int n = view.remaining();
            if (skip >= n) {
                skip -= n;
                continue;
            }
            for (int at = view.position() + skip; at < view.limit() && need > 0; at++, need--) {
                value = value << 8 | (view.get(at) & 0xff);
            }
            skip = 0;
        }
        return value;
    }
}
