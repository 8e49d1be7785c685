package org.rpcrdma4j.codec;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * ConnectionPrivateData - the RFC 8797 message: inline sizes and the remote-invalidate flag.
 *
 * <p>An immutable value, handled once per connection (allocation is fine
 * here). Sizes are kept in bytes; on the wire they are whole KiB, so
 * {@link #encode} rounds a size down to a multiple of 1 KiB (see
 * {@link RpcRdmaCm}).
 *
 * @param maxSendSize largest Send the sender of this message will post, in bytes
 * @param maxReceiveSize largest Send the sender of this message can receive, in bytes
 * @param remoteInvalidate the sender accepts Send With Invalidate
 */
public record ConnectionPrivateData(int maxSendSize, int maxReceiveSize, boolean remoteInvalidate) {

    /**
     * ConnectionPrivateData() - check both sizes are announceable.
     *
     * @throws IllegalArgumentException if a size is outside 1 KiB to 256 KiB, naming it
     */
    public ConnectionPrivateData {
        checkSize("maxSendSize", maxSendSize);
        checkSize("maxReceiveSize", maxReceiveSize);
    }

    /**
     * decode() - read private data received with a connect request or accept.
     *
     * @param buffer the private data; position, limit and order unchanged
     * @param offset absolute index of its first byte
     * @param length bytes of private data (RDMA-CM may pad it)
     * @return the message, or empty when the data is too short or carries
     *         another format identifier or version (use the defaults then)
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public static Optional<ConnectionPrivateData> decode(ByteBuffer buffer, int offset, int length) {
        XdrReader reader = new XdrReader().wrap(buffer, offset, length);
        if (length < RpcRdmaCm.PRIVATE_DATA_BYTES || reader.readInt() != RpcRdmaCm.MAGIC) {
            return Optional.empty();
        }
        int word = reader.readInt();
        int version = word >>> 24;
        if (version != RpcRdmaCm.VERSION_1) {
            return Optional.empty();
        }
        int flags = (word >>> 16) & 0xff;
        return Optional.of(new ConnectionPrivateData(
                RpcRdmaCm.decodeSize(word >>> 8),
                RpcRdmaCm.decodeSize(word),
                (flags & RpcRdmaCm.FLAG_REMOTE_INVALIDATE) != 0));
    }

    /**
     * encode() - write the eight bytes of private data.
     *
     * @param buffer destination; position, limit and order unchanged
     * @param offset absolute index of the first byte
     * @return {@link RpcRdmaCm#PRIVATE_DATA_BYTES}
     * @throws java.nio.BufferOverflowException if fewer than eight bytes fit
     */
    public int encode(ByteBuffer buffer, int offset) {
        int flags = remoteInvalidate ? RpcRdmaCm.FLAG_REMOTE_INVALIDATE : 0;
        int word = RpcRdmaCm.VERSION_1 << 24 | flags << 16
                | RpcRdmaCm.encodeSize(maxSendSize) << 8 | RpcRdmaCm.encodeSize(maxReceiveSize);
        XdrWriter writer = new XdrWriter().wrap(buffer, offset, Math.max(0, Math.min(
                RpcRdmaCm.PRIVATE_DATA_BYTES, buffer.capacity() - offset)));
        writer.writeInt(RpcRdmaCm.MAGIC).writeInt(word);
        return writer.length();
    }

    private static void checkSize(String name, int size) {
        if (size < RpcRdmaCm.MIN_SIZE || size > RpcRdmaCm.MAX_SIZE) {
            throw new IllegalArgumentException(name + " must be between " + RpcRdmaCm.MIN_SIZE + " and "
                    + RpcRdmaCm.MAX_SIZE + ", was " + size);
        }
    }
}
