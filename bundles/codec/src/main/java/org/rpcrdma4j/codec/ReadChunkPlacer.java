package org.rpcrdma4j.codec;

/**
 * ReadChunkPlacer - check where each read chunk goes in the call and record its inline offset.
 *
 * <p>Read positions are XDR offsets in the reconstructed call, in which every
 * chunk occupies its length rounded up to four bytes (RFC 8166 §3.4.5.2). With
 * chunks in position order, the inline offset of chunk k is its position minus
 * the padded lengths of the chunks placed before it. A chunk is
 * <ul>
 * <li>overlapping when its inline offset is below the previous chunk's (it
 *     starts inside that chunk's data, or before the message);</li>
 * <li>beyond the inline body when its inline offset exceeds the length of the
 *     inline stream.</li>
 * </ul>
 * The inline stream is the RPC body after the header for RDMA_MSG. For
 * RDMA_NOMSG it is the data of the position-zero chunk (that chunk IS the
 * message, RFC 8166 §3.5.3): it is not placed itself, contributes no padded
 * length, and the other chunks are checked against its unpadded length. This
 * matches how Linux reads a call chunk with data chunks interleaved.
 *
 * <p>Stateless; assumes the chunk list was grouped and the procedure checks
 * (position-zero chunk present for NOMSG, absent for MSG) already passed.
 */
final class ReadChunkPlacer {

    private ReadChunkPlacer() {
    }

    /**
     * placeReadChunks() - validate positions and fill the inline offsets of {@code readList}.
     *
     * @param readList grouped chunks in position order
     * @param inlineLength bytes of the inline stream (see class comment)
     * @return OK, {@link DecodeStatus#OVERLAPPING_READ_CHUNKS} or
     *         {@link DecodeStatus#READ_POSITION_BEYOND_INLINE}
     */
    static DecodeStatus placeReadChunks(ReadList readList, long inlineLength) {
        int first = readList.hasPositionZeroChunk() ? 1 : 0;
        long consumed = 0;
        long previousOffset = 0;
        for (int k = first; k < readList.chunkCount(); k++) {
            long inlineOffset = readList.position(k) - consumed;
            if (inlineOffset < previousOffset) {
                return DecodeStatus.OVERLAPPING_READ_CHUNKS;
            }
            if (inlineOffset > inlineLength) {
                return DecodeStatus.READ_POSITION_BEYOND_INLINE;
            }
            readList.setInlineOffset(k, inlineOffset);
            previousOffset = inlineOffset;
            consumed += readList.paddedLength(k);
        }
        return DecodeStatus.OK;
    }
}
