package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;

/**
 * The length of a call's transport header before anything is registered, for choosing between
 * RDMA_MSG and RDMA_NOMSG (RFC 8166 §4.3):
 *
 * <pre>
 * fixed header                       4 words
 * read list    per read segment      1 + READ_SEGMENT_WORDS, then 1 terminator
 * write list   per write chunk       1 + 1 + SEGMENT_WORDS * segments, then 1 terminator
 * reply chunk  present               1 + 1 + SEGMENT_WORDS * segments; absent: 1
 * </pre>
 *
 * @param msgHeaderLength bytes of the RDMA_MSG header (DDP read chunks only)
 * @param nomsgHeaderLength bytes of the RDMA_NOMSG header (also the position-zero chunk)
 */
record HeaderSize(int msgHeaderLength, int nomsgHeaderLength) {
    private static final int READ_ITEM_WORDS = RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.READ_SEGMENT_WORDS;
    private static final int CHUNK_HEAD_WORDS = RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.SEGMENT_COUNT_WORDS;

    static HeaderSize of(CallRequest request, int maxSegmentLength) {
        long words = RpcRdma.FIXED_HEADER_WORDS;
        for (CallRequest.DdpItem item : request.readChunks()) {
            words += (long) READ_ITEM_WORDS * Chunk.segmentCount(item.length(), maxSegmentLength);
        }
        words += RpcRdma.DISCRIMINATOR_WORDS; // read list terminator
        for (ByteBuffer sink : request.writeChunks()) {
            words += CHUNK_HEAD_WORDS + (long) RpcRdma.SEGMENT_WORDS * Chunk.segmentCount(sink.capacity(), maxSegmentLength);
        }
        words += RpcRdma.DISCRIMINATOR_WORDS; // write list terminator
        words += RpcRdma.DISCRIMINATOR_WORDS; // reply chunk discriminator
        if (request.replyChunk() != null) {
            words += RpcRdma.SEGMENT_COUNT_WORDS
                    + (long) RpcRdma.SEGMENT_WORDS * Chunk.segmentCount(request.replyChunk().capacity(), maxSegmentLength);
        }
        long positionZeroWords = (long) READ_ITEM_WORDS * Chunk.segmentCount(request.inlineStreamLength(), maxSegmentLength);
        return new HeaderSize(bytes(words), bytes(words + positionZeroWords));
    }

    private static int bytes(long words) {
        long bytes = words * Xdr.UNIT_BYTES;
        return bytes > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) bytes;
    }
}
