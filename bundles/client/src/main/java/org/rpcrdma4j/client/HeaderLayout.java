package org.rpcrdma4j.client;

import org.rpcrdma4j.codec.RpcRdma;

/**
 * Byte offsets of the fields of an encoded call header, for {@link HeaderMutator}s.
 *
 * <p>Immutable; offsets are from the header's first byte. Read items are numbered in the order
 * they were encoded (the position-zero chunk's segments first), write chunks likewise.
 */
public final class HeaderLayout {
    private final int[] readItemOffsets;
    private final int[] writeChunkOffsets;
    private final int writeListOffset;
    private final int replyChunkOffset;
    private final int headerLength;

    HeaderLayout(int[] readItemOffsets, int writeListOffset, int[] writeChunkOffsets, int replyChunkOffset, int headerLength) {
        this.readItemOffsets = readItemOffsets;
        this.writeListOffset = writeListOffset;
        this.writeChunkOffsets = writeChunkOffsets;
        this.replyChunkOffset = replyChunkOffset;
        this.headerLength = headerLength;
    }

    /** @return offset of rdma_xid */
    public int xidOffset() {
        return RpcRdma.XID_OFFSET;
    }

    /** @return offset of rdma_vers */
    public int versOffset() {
        return RpcRdma.VERS_OFFSET;
    }

    /** @return offset of rdma_credit */
    public int creditsOffset() {
        return RpcRdma.CREDITS_OFFSET;
    }

    /** @return offset of rdma_proc */
    public int procOffset() {
        return RpcRdma.PROC_OFFSET;
    }

    /** @return offset of the read list's first discriminator */
    public int readListOffset() {
        return RpcRdma.BODY_OFFSET;
    }

    /** @return the number of read items (segments) encoded */
    public int readItemCount() {
        return readItemOffsets.length;
    }

    /**
     * @param item a read item index
     * @return offset of the item's "present" discriminator; the position follows 4 bytes later,
     *         then handle, length and offset
     */
    public int readItemOffset(int item) {
        return readItemOffsets[item];
    }

    /**
     * @param item a read item index
     * @return offset of the item's XDR position
     */
    public int readPositionOffset(int item) {
        return readItemOffsets[item] + 4;
    }

    /** @return offset of the write list's first discriminator (the read list's terminator is 4 bytes before) */
    public int writeListOffset() {
        return writeListOffset;
    }

    /** @return the number of write chunks encoded */
    public int writeChunkCount() {
        return writeChunkOffsets.length;
    }

    /**
     * @param chunk a write chunk index
     * @return offset of the chunk's "present" discriminator
     */
    public int writeChunkOffset(int chunk) {
        return writeChunkOffsets[chunk];
    }

    /**
     * @param chunk a write chunk index
     * @return offset of the chunk's segment count
     */
    public int writeChunkCountOffset(int chunk) {
        return writeChunkOffsets[chunk] + 4;
    }

    /** @return offset of the reply chunk's discriminator (0 absent, 1 present) */
    public int replyChunkOffset() {
        return replyChunkOffset;
    }

    /** @return offset of the reply chunk's segment count; meaningful only when one is present */
    public int replyChunkCountOffset() {
        return replyChunkOffset + 4;
    }

    /** @return the header's length in bytes; the inline RPC message starts there */
    public int headerLength() {
        return headerLength;
    }
}
