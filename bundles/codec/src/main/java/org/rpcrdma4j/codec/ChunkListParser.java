package org.rpcrdma4j.codec;

/**
 * ChunkListParser - second decode pass: fill a {@link ParsedHeader}'s lists from
 * words the {@link ChunkListScanner} has already validated.
 *
 * <p>The shape of the lists (discriminators, counts, room in the buffer and in
 * the pre-sized arrays) was proven by the scan, so this pass reads without
 * bounds checks of its own. It checks what needs the values: read positions
 * must be multiples of four (RFC 8166 §3.4.5), byte totals (summed as 64-bit,
 * so they cannot wrap) must stay within the limits, and the distinct read
 * positions must fit the chunk capacity. Read items are grouped into chunks in
 * position order; checking where the chunks go is {@link ReadChunkPlacer}'s job.
 *
 * <p>Threading: one instance per {@link HeaderDecoder}; not thread-safe.
 */
final class ChunkListParser {

    private final RpcRdmaLimits limits;

    ChunkListParser(RpcRdmaLimits limits) {
        this.limits = limits;
    }

    /**
     * parse() - decode the three lists into {@code out}.
     *
     * <p>Assumptions: {@code scanner.scan()} returned OK for the words at the
     * reader's cursor, and {@code out} fits the limits. On OK the cursor ends
     * where the scan ended.
     */
    DecodeStatus parse(XdrReader reader, ChunkListScanner scanner, ParsedHeader out) {
        DecodeStatus status = decodeReadList(reader, scanner.readItems, out.readList());
        if (status != DecodeStatus.OK) {
            return status;
        }
        status = decodeWriteList(reader, scanner.writeChunks, out.writeList());
        if (status != DecodeStatus.OK) {
            return status;
        }
        return decodeReplyChunk(reader, scanner.replySegments, out.replyChunk());
    }

    private DecodeStatus decodeReadList(XdrReader reader, int items, ReadList readList) {
        for (int i = 0; i < items; i++) {
            reader.skipWords(RpcRdma.DISCRIMINATOR_WORDS);
            int position = reader.readInt();
            if (!Xdr.isAligned(position)) {
                return DecodeStatus.MISALIGNED_READ_POSITION;
            }
            readList.insertItem(position, reader.readInt(), reader.readInt(), reader.readHyper());
        }
        reader.skipWords(RpcRdma.DISCRIMINATOR_WORDS);
        if (readList.totalLength() > limits.maxReadBytes()) {
            return DecodeStatus.READ_BYTES_OVER_LIMIT;
        }
        if (!readList.groupChunks()) {
            return DecodeStatus.TOO_MANY_READ_CHUNKS;
        }
        return DecodeStatus.OK;
    }

    private DecodeStatus decodeWriteList(XdrReader reader, int chunks, WriteList writeList) {
        for (int c = 0; c < chunks; c++) {
            reader.skipWords(RpcRdma.DISCRIMINATOR_WORDS);
            int segments = reader.readInt();
            writeList.beginChunk();
            for (int s = 0; s < segments; s++) {
                writeList.addSegment(reader.readInt(), reader.readInt(), reader.readHyper());
            }
        }
        reader.skipWords(RpcRdma.DISCRIMINATOR_WORDS);
        if (writeList.totalLength() > limits.maxWriteBytes()) {
            return DecodeStatus.WRITE_BYTES_OVER_LIMIT;
        }
        return DecodeStatus.OK;
    }

    private DecodeStatus decodeReplyChunk(XdrReader reader, int segments, SegmentList replyChunk) {
        reader.skipWords(RpcRdma.DISCRIMINATOR_WORDS);
        if (segments == 0) {
            return DecodeStatus.OK;
        }
        reader.skipWords(RpcRdma.SEGMENT_COUNT_WORDS);
        for (int s = 0; s < segments; s++) {
            replyChunk.add(reader.readInt(), reader.readInt(), reader.readHyper());
        }
        if (replyChunk.totalLength() > limits.maxReplyBytes()) {
            return DecodeStatus.REPLY_BYTES_OVER_LIMIT;
        }
        return DecodeStatus.OK;
    }
}
