package org.rpcrdma4j.codec;

/**
 * RpcRdmaCm - constants of the RPC-over-RDMA connection private data (RFC 8797).
 *
 * <p>Exchanged in the RDMA-CM connect request and accept, the message lets
 * each peer announce its inline thresholds and whether it accepts Send With
 * Invalidate (RFC 8797 §5.1):
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       Format Identifier                       |  MAGIC_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    Version    |   Reserved  |I|   Send Size   | Receive Size  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   VERSION_OFFSET  FLAGS_OFFSET    SEND_SIZE_OFFSET RECEIVE_SIZE_OFFSET
 * </pre>
 *
 * <p>Sizes are in units of 1 KiB minus one ({@code (bytes >> 10) - 1}), so one
 * byte covers 1 KiB to 256 KiB; this is how Linux encodes them. The I flag
 * (bit 0 of the flags byte) says the sender may be sent Send With Invalidate.
 * Private data that is shorter, or carries another identifier or version, is
 * not ours: the peer then uses {@link RpcRdma#DEFAULT_INLINE_THRESHOLD} both
 * ways. RDMA-CM may pad private data, so longer data is accepted.
 */
public final class RpcRdmaCm {

    /** Format identifier (RFC 8797 §5.1). */
    public static final int MAGIC = 0xf6ab0e18;
    /** Version of the message format defined by RFC 8797. */
    public static final int VERSION_1 = 1;
    /** Flag: the sender accepts Send With Invalidate ("I" bit). */
    public static final int FLAG_REMOTE_INVALIDATE = 1;

    /** Bytes of the private data message. */
    public static final int PRIVATE_DATA_BYTES = 8;
    /** Byte offset of the format identifier. */
    public static final int MAGIC_OFFSET = 0;
    /** Byte offset of the version. */
    public static final int VERSION_OFFSET = 4;
    /** Byte offset of the flags. */
    public static final int FLAGS_OFFSET = 5;
    /** Byte offset of the encoded send size. */
    public static final int SEND_SIZE_OFFSET = 6;
    /** Byte offset of the encoded receive size. */
    public static final int RECEIVE_SIZE_OFFSET = 7;

    /** Size unit of the send and receive sizes. */
    public static final int SIZE_UNIT = 1024;
    /** Smallest size that can be announced. */
    public static final int MIN_SIZE = SIZE_UNIT;
    /** Largest size that can be announced (256 KiB). */
    public static final int MAX_SIZE = 256 * SIZE_UNIT;

    private RpcRdmaCm() {
    }

    /**
     * encodeSize() - the one-byte encoding of a buffer size, rounded down to whole KiB.
     *
     * @param bytes {@link #MIN_SIZE} to {@link #MAX_SIZE}
     * @return 0 to 255
     * @throws IllegalArgumentException outside that range
     */
    public static int encodeSize(int bytes) {
        if (bytes < MIN_SIZE || bytes > MAX_SIZE) {
            throw new IllegalArgumentException("size must be between " + MIN_SIZE + " and " + MAX_SIZE + ": " + bytes);
        }
        return (bytes / SIZE_UNIT) - 1;
    }

    /**
     * decodeSize() - the buffer size a one-byte encoding stands for.
     *
     * @param encoded the byte as sent, taken as unsigned
     * @return 1 KiB to 256 KiB
     */
    public static int decodeSize(int encoded) {
        return ((encoded & 0xff) + 1) * SIZE_UNIT;
    }

    /**
     * toString() - names of the flags set in a flags byte.
     *
     * @param flags the flags byte
     * @return e.g. "REMOTE_INVALIDATE", "" when none, unknown bits in hex
     */
    public static String toString(int flags) {
        StringBuilder sb = new StringBuilder();
        if ((flags & FLAG_REMOTE_INVALIDATE) != 0) {
            sb.append("REMOTE_INVALIDATE");
        }
        int unknown = flags & ~FLAG_REMOTE_INVALIDATE;
        if (unknown != 0) {
            sb.append(sb.length() == 0 ? "" : "|").append("0x").append(Integer.toHexString(unknown));
        }
        return sb.toString();
    }
}
