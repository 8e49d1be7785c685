package org.rpcrdma4j.codec;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * ReplyEncoder - encode the transport header of a responder's answer to a decoded call.
 *
 * <p>A reply header echoes the call's write list with each segment's length
 * trimmed to what was actually written into it (RFC 8166 §3.4.6, §4.3.2):
 * segments are filled in order, so the first ones carry their full length,
 * one may be partial and the rest carry zero. A write chunk the reply did not
 * use is returned with all its segments at length zero, never dropped and
 * never with a segment count of zero: this is what Linux's server does
 * (svc_rdma_encode_write_chunk with a payload length of 0), and a zero count
 * is exactly what a careful decoder rejects. The reply chunk is treated the
 * same way when the reply travels in it.
 *
 * <p>Every argument is checked and the size computed before the first byte is
 * written, so a failed call leaves nothing half-encoded behind the caller's
 * back; a buffer too small throws {@link BufferOverflowException}. Nothing is
 * allocated.
 *
 * <p>Threading: holds a writer flyweight; confined to one thread.
 */
public final class ReplyEncoder {

    private static final int SEGMENT_BYTES = Xdr.wordsToBytes(RpcRdma.SEGMENT_WORDS);
    private static final int CHUNK_PREFIX_BYTES =
            Xdr.wordsToBytes(RpcRdma.DISCRIMINATOR_WORDS + RpcRdma.SEGMENT_COUNT_WORDS);

    private final HeaderWriter writer = new HeaderWriter();

    /**
     * replyHeaderLength() - bytes of the reply header {@link #encodeMsgReply}
     * or {@link #encodeNomsgReply} writes for {@code call}.
     *
     * @param call a call decoded with status OK
     * @param withReplyChunk true for an RDMA_NOMSG reply that returns the reply chunk
     * @return header bytes
     */
    public static int replyHeaderLength(ParsedHeader call, boolean withReplyChunk) {
        WriteList writes = call.writeList();
        int bytes = Xdr.wordsToBytes(RpcRdma.MIN_MSG_HEADER_WORDS)
                + writes.chunkCount() * CHUNK_PREFIX_BYTES
                + writes.segments().count() * SEGMENT_BYTES;
        if (withReplyChunk) {
            bytes += Xdr.wordsToBytes(RpcRdma.SEGMENT_COUNT_WORDS) + call.replyChunk().count() * SEGMENT_BYTES;
        }
        return bytes;
    }

    /**
     * encodeMsgReply() - RDMA_MSG header for a reply whose RPC message follows inline.
     *
     * <p>The read list is empty, the write list is echoed with the lengths
     * written, and the reply chunk is absent (the reply did not use it). When
     * the call offered a reply chunk, Linux's server always answers through it
     * with RDMA_NOMSG ({@link #encodeNomsgReply}); replying inline instead is
     * allowed, and the Linux client accepts it.
     *
     * @param dst buffer for the header; position, limit and order unchanged
     * @param offset absolute index of the header's first byte
     * @param length bytes available
     * @param call the decoded call being answered (its xid is echoed)
     * @param credits credits granted, never 0 in version 1
     * @param writeChunkBytes bytes written into each write chunk, indexed like
     *        the call's write list; null when nothing was written
     * @return header bytes written
     * @throws IllegalArgumentException if a written count is negative or exceeds its chunk,
     *         or {@code writeChunkBytes} is shorter than the write list
     * @throws BufferOverflowException if the header does not fit in {@code length}
     */
    public int encodeMsgReply(ByteBuffer dst, int offset, int length, ParsedHeader call, int credits,
                              long[] writeChunkBytes) {
        checkWritten(call.writeList(), writeChunkBytes);
        checkRoom(replyHeaderLength(call, false), length);
        writer.wrap(dst, offset, length).fixedHeader(call.xid(), RpcRdma.VERSION_1, credits, RpcRdma.RDMA_MSG);
        encodeWriteList(call.writeList(), writeChunkBytes);
        return writer.finish();
    }

    /**
     * encodeNomsgReply() - RDMA_NOMSG header for a reply sent through the call's reply chunk.
     *
     * @param replyChunkBytes bytes of RPC reply written into the reply chunk
     * @return header bytes written
     * @throws IllegalArgumentException if the call has no reply chunk, or a byte
     *         count is negative or exceeds its chunk
     * @throws BufferOverflowException if the header does not fit in {@code length}
     * @see #encodeMsgReply for the other parameters
     */
    public int encodeNomsgReply(ByteBuffer dst, int offset, int length, ParsedHeader call, int credits,
                                long[] writeChunkBytes, long replyChunkBytes) {
        SegmentList reply = call.replyChunk();
        if (reply.isEmpty()) {
            throw new IllegalArgumentException("the call has no reply chunk");
        }
        checkWritten(call.writeList(), writeChunkBytes);
        checkBytes(replyChunkBytes, reply.totalLength(), "reply chunk");
        checkRoom(replyHeaderLength(call, true), length);
        writer.wrap(dst, offset, length).fixedHeader(call.xid(), RpcRdma.VERSION_1, credits, RpcRdma.RDMA_NOMSG);
        encodeWriteList(call.writeList(), writeChunkBytes);
        writer.replyChunk(reply.count());
        encodeTrimmedSegments(reply, 0, reply.count(), replyChunkBytes);
        return writer.finish();
    }

    /**
     * encodeErrVers() - RDMA_ERROR / ERR_VERS (RFC 8166 §4.5.1).
     *
     * @param vers the version field to send; Linux echoes the requester's
     * @param versLow lowest version supported (1)
     * @param versHigh highest version supported (1)
     * @return header bytes written
     */
    public int encodeErrVers(ByteBuffer dst, int offset, int length, int xid, int vers, int credits,
                             int versLow, int versHigh) {
        checkRoom(Xdr.wordsToBytes(RpcRdma.FIXED_HEADER_WORDS + RpcRdma.ERR_VERS_WORDS), length);
        return writer.wrap(dst, offset, length).fixedHeader(xid, vers, credits, RpcRdma.RDMA_ERROR)
                .errVers(versLow, versHigh).finish();
    }

    /**
     * encodeErrChunk() - RDMA_ERROR / ERR_CHUNK (RFC 8166 §4.5.2) for a version 1 header.
     *
     * @return header bytes written
     */
    public int encodeErrChunk(ByteBuffer dst, int offset, int length, int xid, int credits) {
        checkRoom(Xdr.wordsToBytes(RpcRdma.FIXED_HEADER_WORDS + RpcRdma.ERR_CHUNK_WORDS), length);
        return writer.wrap(dst, offset, length).fixedHeader(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_ERROR)
                .errChunk().finish();
    }

    private void encodeWriteList(WriteList writes, long[] writeChunkBytes) {
        for (int c = 0; c < writes.chunkCount(); c++) {
            writer.writeChunk(writes.segmentCount(c));
            encodeTrimmedSegments(writes.segments(), writes.firstSegment(c), writes.segmentCount(c),
                    writeChunkBytes == null ? 0 : writeChunkBytes[c]);
        }
    }

    /** encodeTrimmedSegments() - echo segments, their lengths cut down to the {@code written} bytes. */
    private void encodeTrimmedSegments(SegmentList segments, int first, int count, long written) {
        long remaining = written;
        for (int i = first; i < first + count; i++) {
            long used = Math.min(remaining, segments.length(i));
            remaining -= used;
            writer.segment(segments.handle(i), used, segments.offset(i));
        }
    }

    private static void checkWritten(WriteList writes, long[] writeChunkBytes) {
        if (writeChunkBytes == null) {
            return;
        }
        if (writeChunkBytes.length < writes.chunkCount()) {
            throw new IllegalArgumentException("writeChunkBytes has " + writeChunkBytes.length
                    + " entries for " + writes.chunkCount() + " write chunks");
        }
        for (int c = 0; c < writes.chunkCount(); c++) {
            checkBytes(writeChunkBytes[c], writes.chunkLength(c), "write chunk");
        }
    }

    private static void checkBytes(long written, long capacity, String what) {
        if (written < 0 || written > capacity) {
            throw new IllegalArgumentException(what + " of " + capacity + " bytes cannot hold " + written);
        }
    }

    private static void checkRoom(int needed, int available) {
        if (needed > available) {
            throw new BufferOverflowException();
        }
    }
}
