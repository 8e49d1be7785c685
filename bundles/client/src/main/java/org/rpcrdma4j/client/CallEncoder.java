package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.List;

import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;

/**
 * Encodes a prepared call into its send buffer with the codec's {@link HeaderWriter}: the RFC 8166
 * §4.2 call header (xid, version 1, credits requested, RDMA_MSG or RDMA_NOMSG, read list with the
 * position-zero chunk first, write list, reply chunk; sizes in {@link HeaderSize}), followed for
 * RDMA_MSG by the message without its DDP items. A raw call is copied as it is.
 *
 * <p>Threading: holds a writer flyweight; MUST be confined to the thread that posts (the client's
 * lock holder).
 */
final class CallEncoder {
    private static final int READ_ITEM_BYTES = Xdr.wordsToBytes(RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.READ_SEGMENT_WORDS);
    private static final int CHUNK_HEAD_BYTES = Xdr.wordsToBytes(RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.SEGMENT_COUNT_WORDS);
    private static final int SEGMENT_BYTES = Xdr.wordsToBytes(RpcRdma.SEGMENT_WORDS);
    private static final int DISCRIMINATOR_BYTES = Xdr.wordsToBytes(RpcRdma.DISCRIMINATOR_WORDS);

    private final HeaderWriter writer = new HeaderWriter();

    /**
     * Encodes a call.
     *
     * <p>Assumptions: {@code [offset, offset + capacity)} of the buffer is free and at least
     * {@link PreparedCall#sendLength()} long.
     *
     * @param call the call
     * @param credits the credits to request
     * @param buffer the send buffer
     * @param offset absolute index of the first byte
     * @param capacity bytes available
     * @return the bytes encoded
     */
    int encode(PreparedCall call, int credits, ByteBuffer buffer, int offset, int capacity) {
        if (call.proc() == -1) {
            buffer.put(offset, call.request().message(), 0, call.request().messageLength());
            return call.request().messageLength();
        }
        writer.wrap(buffer, offset, capacity).fixedHeader(call.xid(), RpcRdma.VERSION_1, credits, call.proc());
        if (call.positionZeroChunk() != null) {
            writeReadChunk(call.positionZeroChunk());
        }
        for (Chunk chunk : call.readChunks()) {
            writeReadChunk(chunk);
        }
        for (Chunk chunk : call.writeChunks()) {
            writer.writeChunk(chunk.segmentCount());
            writeSegments(chunk);
        }
        if (call.replyChunk() != null) {
            writer.replyChunk(call.replyChunk().segmentCount());
            writeSegments(call.replyChunk());
        }
        int headerLength = writer.finish();
        if (headerLength != call.headerLength()) {
            throw new IllegalStateException("header of " + headerLength + " bytes, " + call.headerLength() + " planned");
        }
        if (call.proc() == RpcRdma.RDMA_MSG) {
            return headerLength + PreparedCall.copyInlineStream(call.request(), buffer, offset + headerLength);
        }
        return headerLength;
    }

    /**
     * Where the fields of a call's encoded header lie (the wire layout of RFC 8166 §4.3).
     *
     * @param call a call that is not raw
     * @return the layout
     */
    static HeaderLayout layoutOf(PreparedCall call) {
        int items = call.positionZeroChunk() == null ? 0 : call.positionZeroChunk().segmentCount();
        for (Chunk chunk : call.readChunks()) {
            items += chunk.segmentCount();
        }
        int[] readItemOffsets = new int[items];
        for (int i = 0; i < items; i++) {
            readItemOffsets[i] = RpcRdma.BODY_OFFSET + i * READ_ITEM_BYTES;
        }
        int writeListOffset = RpcRdma.BODY_OFFSET + items * READ_ITEM_BYTES + DISCRIMINATOR_BYTES;
        List<Chunk> writes = call.writeChunks();
        int[] writeChunkOffsets = new int[writes.size()];
        int at = writeListOffset;
        for (int i = 0; i < writes.size(); i++) {
            writeChunkOffsets[i] = at;
            at += CHUNK_HEAD_BYTES + writes.get(i).segmentCount() * SEGMENT_BYTES;
        }
        return new HeaderLayout(readItemOffsets, writeListOffset, writeChunkOffsets, at + DISCRIMINATOR_BYTES, call.headerLength());
    }

    private void writeReadChunk(Chunk chunk) {
        for (int s = 0; s < chunk.segmentCount(); s++) {
            writer.readChunk(chunk.position(), chunk.handle(), chunk.segmentLength(s), chunk.segmentAddress(s));
        }
    }

    private void writeSegments(Chunk chunk) {
        for (int s = 0; s < chunk.segmentCount(); s++) {
            writer.segment(chunk.handle(), chunk.segmentLength(s), chunk.segmentAddress(s));
        }
    }
}
