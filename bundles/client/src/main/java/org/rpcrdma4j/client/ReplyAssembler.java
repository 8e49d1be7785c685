package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;

/**
 * Builds the {@link RpcReply} of a call from a decoded reply header: the inline body (copied out
 * of the receive buffer, which is reposted next) or the reply chunk's data for RDMA_NOMSG, and the
 * data of each write chunk the server reported, checked against what the call offered (RFC 8166
 * §3.4.6, §3.5: a responder echoes the handles and offsets it was given, with the lengths it
 * wrote).
 *
 * <p>Stateless; the caller owns the call and the receive buffer for the duration.
 */
final class ReplyAssembler {
    private ReplyAssembler() {
    }

    /**
     * Assembles a reply.
     *
     * <p>Assumptions: the header decoded OK as a reply (RDMA_MSG or RDMA_NOMSG; the decoder
     * guarantees a reply chunk for RDMA_NOMSG and no read list).
     *
     * @param header the decoded header
     * @param receive the receive buffer the header was decoded from
     * @param call the call it answers
     * @param invalidated whether the SEND invalidated a key
     * @param invalidatedKey that key
     * @return the reply
     * @throws MalformedReplyException when the reply reports chunks or lengths never offered
     */
    static RpcReply assemble(ParsedHeader header, ByteBuffer receive, PreparedCall call, boolean invalidated, int invalidatedKey)
            throws MalformedReplyException {
        List<ByteBuffer> writes = writeChunkData(header, call);
        ByteBuffer body;
        if (header.proc() == RpcRdma.RDMA_NOMSG) {
            if (call.replyChunk() == null) {
                throw new MalformedReplyException(header.xid(), "RDMA_NOMSG reply but no reply chunk was offered");
            }
            SegmentList segments = header.replyChunk();
            checkChunk(header.xid(), "reply chunk", call.replyChunk(), segments.count(), i -> segments.handle(i), i -> segments.length(i),
                    i -> segments.offset(i));
            body = gather(call.replyChunk(), segments.count(), i -> segments.length(i));
        } else {
            body = ByteBuffer.allocate(header.bodyLength());
            body.put(0, receive, header.bodyOffset(), header.bodyLength());
        }
        return new RpcReply(header.xid(), header.proc(), header.credits(), body, writes, invalidated, invalidatedKey);
    }

    private static List<ByteBuffer> writeChunkData(ParsedHeader header, PreparedCall call) throws MalformedReplyException {
        WriteList list = header.writeList();
        if (list.chunkCount() > call.writeChunks().size()) {
            throw new MalformedReplyException(header.xid(), list.chunkCount() + " write chunks reported, " + call.writeChunks().size()
                    + " offered");
        }
        if (list.chunkCount() == 0) {
            return List.of();
        }
        List<ByteBuffer> data = new ArrayList<>(list.chunkCount());
        for (int c = 0; c < list.chunkCount(); c++) {
            int chunk = c;
            Chunk offered = call.writeChunks().get(c);
            checkChunk(header.xid(), "write chunk " + c, offered, list.segmentCount(c), s -> list.handle(chunk, s),
                    s -> list.length(chunk, s), s -> list.offset(chunk, s));
            data.add(gather(offered, list.segmentCount(c), s -> list.length(chunk, s)));
        }
        return data;
    }

    /** A field of the i-th reported segment. */
    @FunctionalInterface
    private interface SegmentField {
        long get(int segment);
    }

    private static void checkChunk(int xid, String name, Chunk offered, int count, SegmentField handle, SegmentField length,
            SegmentField offset) throws MalformedReplyException {
        if (count > offered.segmentCount()) {
            throw new MalformedReplyException(xid, name + ": " + count + " segments reported, " + offered.segmentCount() + " offered");
        }
        for (int s = 0; s < count; s++) {
            if ((int) handle.get(s) != offered.handle() || offset.get(s) != offered.segmentAddress(s)) {
                throw new MalformedReplyException(xid, name + " segment " + s + ": handle/offset 0x" + Long.toHexString(handle.get(s)) + "/0x"
                        + Long.toHexString(offset.get(s)) + " was never offered");
            }
            if (length.get(s) > offered.segmentLength(s)) {
                throw new MalformedReplyException(xid, name + " segment " + s + ": " + length.get(s) + " bytes reported, "
                        + offered.segmentLength(s) + " offered");
            }
        }
    }

    /**
     * The data a chunk received: a view of its memory when the segments were filled in order,
     * else a copy of each segment's reported bytes.
     */
    private static ByteBuffer gather(Chunk chunk, int count, SegmentField length) {
        long total = 0;
        boolean contiguous = true;
        for (int s = 0; s < count; s++) {
            if (length.get(s) > 0 && total != chunk.segmentStart(s)) {
                contiguous = false;
            }
            total += length.get(s);
        }
        ByteBuffer memory = chunk.buffer();
        if (contiguous) {
            return memory.slice(0, (int) total);
        }
        ByteBuffer copy = ByteBuffer.allocate((int) total);
        int at = 0;
        for (int s = 0; s < count; s++) {
            int n = (int) length.get(s);
            copy.put(at, memory, chunk.segmentStart(s), n);
            at += n;
        }
        return copy;
    }
}
