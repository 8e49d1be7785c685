package org.rpcrdma4j.codec;

/**
 * ChunkListScanner - first decode pass: walk the three chunk lists, validate
 * their shape and count their items, storing nothing.
 *
 * <p>Every count taken from the wire is compared with what is left of the
 * buffer (by division, never by multiplying the untrusted count) and with the
 * configured limits before the cursor moves past the items it announces, so
 * the walk is bounded by the buffer and no multiplication can overflow
 * (CVE-2024-53151 class). A write or reply chunk announcing zero segments is
 * rejected outright (CVE-2026-93228 class), except that a requester accepts
 * an <em>empty</em> write chunk in a reply: RFC 8166 §3.4.6 lets a responder
 * return an unused write chunk that way. Such a chunk still consumes two words
 * and counts against {@link RpcRdmaLimits#maxWriteChunks()}, so the walk stays
 * bounded. When this pass returns
 * {@link DecodeStatus#OK} the second pass ({@link ChunkListParser}) may walk
 * the same words without any check and is certain to fit the pre-sized
 * {@link ParsedHeader}.
 *
 * <p>Threading: one instance per {@link HeaderDecoder}; not thread-safe.
 */
final class ChunkListScanner {

    private final RpcRdmaLimits limits;
    private final DecodeStatus emptyWriteChunk;

    /** Read items seen by the last successful scan. */
    int readItems;
    /** Write chunks seen by the last successful scan. */
    int writeChunks;
    /** Segments of the reply chunk seen by the last successful scan (0: no reply chunk). */
    int replySegments;
    /** Count of the segment array {@link #skipSegmentArray} stepped over last. */
    private int lastSegmentCount;

    /**
     * ChunkListScanner() - a scanner enforcing {@code limits}.
     *
     * @param allowEmptyWriteChunks true when decoding replies (see class comment)
     */
    ChunkListScanner(RpcRdmaLimits limits, boolean allowEmptyWriteChunks) {
        this.limits = limits;
        this.emptyWriteChunk = allowEmptyWriteChunks ? DecodeStatus.OK : DecodeStatus.ZERO_SEGMENT_WRITE_CHUNK;
    }

    /**
     * scan() - validate and count the read list, the write list and the reply chunk.
     *
     * <p>Assumptions: the reader's cursor is on the first word after the fixed
     * header. On OK the cursor is left on the first byte after the reply chunk;
     * on any other status its position is unspecified.
     */
    DecodeStatus scan(XdrReader reader) {
        readItems = 0;
        writeChunks = 0;
        replySegments = 0;
        DecodeStatus status = countReadItems(reader);
        if (status != DecodeStatus.OK) {
            return status;
        }
        status = countWriteChunks(reader);
        if (status != DecodeStatus.OK) {
            return status;
        }
        return countReplySegments(reader);
    }

    private DecodeStatus countReadItems(XdrReader reader) {
        while (true) {
            if (!reader.hasWords(RpcRdma.DISCRIMINATOR_WORDS)) {
                return DecodeStatus.READ_LIST_TRUNCATED;
            }
            int discriminator = reader.readInt();
            if (discriminator == RpcRdma.ITEM_ABSENT) {
                return DecodeStatus.OK;
            }
            if (discriminator != RpcRdma.ITEM_PRESENT) {
                return DecodeStatus.BAD_DISCRIMINATOR;
            }
            if (!reader.hasWords(RpcRdma.READ_SEGMENT_WORDS)) {
                return DecodeStatus.READ_LIST_TRUNCATED;
            }
            if (++readItems > limits.maxReadSegments()) {
                return DecodeStatus.TOO_MANY_READ_SEGMENTS;
            }
            reader.skipWords(RpcRdma.READ_SEGMENT_WORDS);
        }
    }

    private DecodeStatus countWriteChunks(XdrReader reader) {
        while (true) {
            if (!reader.hasWords(RpcRdma.DISCRIMINATOR_WORDS)) {
                return DecodeStatus.WRITE_LIST_TRUNCATED;
            }
            int discriminator = reader.readInt();
            if (discriminator == RpcRdma.ITEM_ABSENT) {
                return DecodeStatus.OK;
            }
            if (discriminator != RpcRdma.ITEM_PRESENT) {
                return DecodeStatus.BAD_DISCRIMINATOR;
            }
            if (++writeChunks > limits.maxWriteChunks()) {
                return DecodeStatus.TOO_MANY_WRITE_CHUNKS;
            }
            DecodeStatus status = skipSegmentArray(reader, DecodeStatus.WRITE_LIST_TRUNCATED,
                    emptyWriteChunk, DecodeStatus.TOO_MANY_WRITE_SEGMENTS);
            if (status != DecodeStatus.OK) {
                return status;
            }
        }
    }

    private DecodeStatus countReplySegments(XdrReader reader) {
        if (!reader.hasWords(RpcRdma.DISCRIMINATOR_WORDS)) {
            return DecodeStatus.REPLY_CHUNK_TRUNCATED;
        }
        int discriminator = reader.readInt();
        if (discriminator == RpcRdma.ITEM_ABSENT) {
            return DecodeStatus.OK;
        }
        if (discriminator != RpcRdma.ITEM_PRESENT) {
            return DecodeStatus.BAD_DISCRIMINATOR;
        }
        DecodeStatus status = skipSegmentArray(reader, DecodeStatus.REPLY_CHUNK_TRUNCATED,
                DecodeStatus.ZERO_SEGMENT_REPLY_CHUNK, DecodeStatus.TOO_MANY_REPLY_SEGMENTS);
        if (status == DecodeStatus.OK) {
            replySegments = lastSegmentCount;
        }
        return status;
    }

    /**
     * skipSegmentArray() - check and step over a counted array of segments.
     *
     * <p>The count is compared with the remaining words divided by the segment
     * size before anything is multiplied by it.
     *
     * @param zeroSegments the status for a count of zero; OK accepts an empty array
     */
    private DecodeStatus skipSegmentArray(XdrReader reader, DecodeStatus truncated, DecodeStatus zeroSegments,
                                          DecodeStatus tooMany) {
        if (!reader.hasWords(RpcRdma.SEGMENT_COUNT_WORDS)) {
            return truncated;
        }
        long count = reader.readUnsignedInt();
        if (count == 0) {
            lastSegmentCount = 0;
            return zeroSegments;
        }
        if (count > reader.remainingWords() / RpcRdma.SEGMENT_WORDS) {
            return DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER;
        }
        if (count > limits.maxSegmentsPerChunk()) {
            return tooMany;
        }
        lastSegmentCount = (int) count;
        reader.skipWords(lastSegmentCount * RpcRdma.SEGMENT_WORDS);
        return DecodeStatus.OK;
    }
}
