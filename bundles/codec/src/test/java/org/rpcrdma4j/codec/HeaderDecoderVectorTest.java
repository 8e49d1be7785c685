package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Byte-exact vectors, laid out by hand from RFC 8166, for every procedure and list shape. */
class HeaderDecoderVectorTest {

    private final HeaderDecoder calls = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);
    private final HeaderDecoder replies = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.REQUESTER);
    private final ParsedHeader out = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

    private DecodeStatus decodeCall(WireBuilder wire) {
        return calls.decode(wire.toBuffer(), 0, wire.length(), out);
    }

    @Test
    void rdmaMsgWithoutChunks() {
        WireBuilder wire = WireBuilder.msg(0x01020304, 32).noChunks().body(40);
        byte[] bytes = wire.toBytes();
        assertEquals(28 + 40, bytes.length);
        assertEquals(0x01, bytes[0]);
        assertEquals(32, bytes[11]);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        assertEquals(0x01020304, out.xid());
        assertEquals(1, out.vers());
        assertEquals(32, out.credits());
        assertEquals(RpcRdma.RDMA_MSG, out.proc());
        assertEquals(28, out.headerLength());
        assertEquals(28, out.bodyOffset());
        assertEquals(40, out.bodyLength());
        assertTrue(out.readList().isEmpty());
        assertTrue(out.writeList().isEmpty());
        assertFalse(out.hasReplyChunk());
    }

    @Test
    void headerAtAnOffsetOfALittleEndianDirectBuffer() {
        WireBuilder wire = WireBuilder.msg(0xcafe, 5).end().chunk(1).segment(7, 4096, 0x1122334455667788L)
                .end().end().body(12);
        ByteBuffer buffer = wire.toDirectBuffer(100, 64).order(ByteOrder.LITTLE_ENDIAN);

        assertEquals(DecodeStatus.OK, calls.decode(buffer, 100, wire.length(), out));
        assertEquals(0xcafe, out.xid());
        assertEquals(100, out.headerOffset());
        assertEquals(wire.headerLength(), out.headerLength());
        assertEquals(100 + wire.headerLength(), out.bodyOffset());
        assertEquals(12, out.bodyLength());
        assertEquals(0x1122334455667788L, out.writeList().offset(0, 0));
        assertEquals(0, buffer.position());
        assertEquals(ByteOrder.LITTLE_ENDIAN, buffer.order());
    }

    @Test
    void rdmaMsgWithOneReadChunkOfTwoSegments() {
        // NFS WRITE shape: 16 inline bytes, then the data, then 8 more inline bytes.
        WireBuilder wire = WireBuilder.msg(1, 8)
                .read(16, 0xa1, 3000, 0x1000L).read(16, 0xa2, 1001, 0x9000L).end()
                .end().end().body(24);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        ReadList reads = out.readList();
        assertEquals(1, reads.chunkCount());
        assertFalse(reads.hasPositionZeroChunk());
        assertEquals(16, reads.position(0));
        assertEquals(2, reads.segmentCount(0));
        assertEquals(0xa1, reads.handle(0, 0));
        assertEquals(3000, reads.length(0, 0));
        assertEquals(0x9000L, reads.offset(0, 1));
        assertEquals(4001, reads.chunkLength(0));
        assertEquals(4004, reads.paddedLength(0));
        assertEquals(16, reads.inlineOffset(0));
        assertEquals(4001, reads.totalLength());
        assertEquals(4 + 2 * 6 + 1 + 2, out.headerLength() / 4);
    }

    @Test
    void readItemsAreGroupedByPositionAndSortedAsLinuxDoes() {
        // Items arrive as: pos 40 (seg A), pos 8 (seg B), pos 40 (seg C), pos 8 (seg D).
        WireBuilder wire = WireBuilder.msg(2, 8)
                .read(40, 0xA, 4, 0).read(8, 0xB, 6, 0).read(40, 0xC, 4, 0).read(8, 0xD, 2, 0).end()
                .end().end().body(40);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        ReadList reads = out.readList();
        assertEquals(2, reads.chunkCount());
        assertEquals(8, reads.position(0));
        assertEquals(0xB, reads.handle(0, 0));
        assertEquals(0xD, reads.handle(0, 1));
        assertEquals(8, reads.chunkLength(0));
        assertEquals(40, reads.position(1));
        assertEquals(0xA, reads.handle(1, 0));
        assertEquals(0xC, reads.handle(1, 1));
        // Chunk 0 (8 bytes) precedes chunk 1: 40 - 8 = 32 in the inline body.
        assertEquals(8, reads.inlineOffset(0));
        assertEquals(32, reads.inlineOffset(1));
        assertEquals(16, reads.totalLength());
    }

    @Test
    void readChunkRoundUpCountsInLaterPositions() {
        // A 5-byte chunk at 8 occupies 8 bytes; the next chunk may start at 16, inline offset 8.
        WireBuilder wire = WireBuilder.msg(3, 8).read(8, 1, 5, 0).read(16, 2, 4, 0).end()
                .end().end().body(8);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        assertEquals(8, out.readList().inlineOffset(0));
        assertEquals(8, out.readList().inlineOffset(1));
    }

    @Test
    void readChunkAtTheEndOfTheInlineBody() {
        WireBuilder wire = WireBuilder.msg(4, 8).read(20, 1, 100, 0).end().end().end().body(20);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        assertEquals(20, out.readList().inlineOffset(0));
    }

    @Test
    void rdmaMsgWithAWriteListOfTwoChunks() {
        WireBuilder wire = WireBuilder.msg(5, 8).end()
                .chunk(2).segment(0x11, 8192, 0x7f00_0000_0000L).segment(0x12, 4096, 0x7f00_0000_2000L)
                .chunk(1).segment(0x21, 512, 64L)
                .end().end().body(100);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        WriteList writes = out.writeList();
        assertEquals(2, writes.chunkCount());
        assertEquals(2, writes.segmentCount(0));
        assertEquals(1, writes.segmentCount(1));
        assertEquals(0x12, writes.handle(0, 1));
        assertEquals(0x7f00_0000_2000L, writes.offset(0, 1));
        assertEquals(12288, writes.chunkLength(0));
        assertEquals(512, writes.chunkLength(1));
        assertEquals(2, writes.firstSegment(1));
        assertEquals(12800, writes.totalLength());
        assertEquals(4 + 1 + (2 + 8) + (2 + 4) + 1 + 1, out.headerLength() / 4);
    }

    @Test
    void rdmaMsgWithAReplyChunk() {
        WireBuilder wire = WireBuilder.msg(6, 8).end().end()
                .chunk(2).segment(0x31, 65536, 0x10L).segment(0x32, 1024, 0x20L).body(44);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        assertTrue(out.hasReplyChunk());
        assertEquals(2, out.replyChunk().count());
        assertEquals(0x32, out.replyChunk().handle(1));
        assertEquals(65536 + 1024, out.replyChunk().totalLength());
        assertEquals(44, out.bodyLength());
    }

    @Test
    void segmentLengthsAreUnsigned() {
        WireBuilder wire = WireBuilder.msg(7, 8).end().chunk(1).segment(1, 0xFFFF_FFF0, 0).end().end();
        RpcRdmaLimits big = RpcRdmaLimits.builder().maxWriteBytes(1L << 33).build();
        ParsedHeader header = new ParsedHeader(big);

        assertEquals(DecodeStatus.OK, new HeaderDecoder(big, HeaderDecoder.Role.RESPONDER)
                .decode(wire.toBuffer(), 0, wire.length(), header));
        assertEquals(0xFFFF_FFF0L, header.writeList().length(0, 0));
        assertEquals(0xFFFF_FFF0L, header.writeList().totalLength());
    }

    @Test
    void rdmaNomsgLongCallWithReplyChunk() {
        WireBuilder wire = WireBuilder.nomsg(8, 16).read(0, 0x41, 6000, 0x5000L).read(0, 0x42, 2000, 0x8000L)
                .end().end().chunk(1).segment(0x51, 32768, 0x9000L);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        ReadList reads = out.readList();
        assertEquals(RpcRdma.RDMA_NOMSG, out.proc());
        assertEquals(1, reads.chunkCount());
        assertTrue(reads.hasPositionZeroChunk());
        assertEquals(8000, reads.chunkLength(0));
        assertEquals(0, reads.inlineOffset(0));
        assertEquals(0, out.bodyLength());
        assertEquals(1, out.replyChunk().count());
    }

    @Test
    void rdmaNomsgWithADataChunkInsideThePositionZeroChunk() {
        // The call (200 bytes) is in the position-zero chunk; data of 4097 bytes goes at XDR offset 120.
        // A second data chunk at 120 + 4100 + 40 sits 40 bytes later in the call chunk.
        WireBuilder wire = WireBuilder.nomsg(9, 16)
                .read(120, 0x62, 4097, 0).read(0, 0x61, 200, 0).read(120 + 4100 + 40, 0x63, 8, 0)
                .end().end().end();

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        ReadList reads = out.readList();
        assertEquals(3, reads.chunkCount());
        assertTrue(reads.hasPositionZeroChunk());
        assertEquals(0x61, reads.handle(0, 0));
        assertEquals(120, reads.inlineOffset(1));
        assertEquals(160, reads.inlineOffset(2));
        assertEquals(200 + 4097 + 8, reads.totalLength());
    }

    @Test
    void rdmaErrorErrVers() {
        WireBuilder wire = WireBuilder.header(10, 1, 0, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_VERS).word(1).word(1);
        assertEquals(28, wire.length());

        assertEquals(DecodeStatus.OK, replies.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(RpcRdma.RDMA_ERROR, out.proc());
        assertEquals(RpcRdma.ERR_VERS, out.errorCode());
        assertEquals(1, out.versLow());
        assertEquals(1, out.versHigh());
        assertEquals(28, out.headerLength());
    }

    @Test
    void rdmaErrorErrChunk() {
        WireBuilder wire = WireBuilder.header(11, 1, 3, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_CHUNK);

        assertEquals(DecodeStatus.OK, calls.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(RpcRdma.ERR_CHUNK, out.errorCode());
        assertEquals(0, out.versLow());
        assertEquals(20, out.headerLength());
    }

    @Test
    void rdmaDoneIsAnEmptyHeader() {
        WireBuilder wire = WireBuilder.header(12, 1, 1, RpcRdma.RDMA_DONE);

        assertEquals(DecodeStatus.OK, decodeCall(wire));
        assertEquals(RpcRdma.RDMA_DONE, out.proc());
        assertEquals(16, out.headerLength());
        assertEquals(0, out.bodyLength());
    }

    @Test
    void requesterDecodesAnRdmaMsgReplyEchoingTheWriteList() {
        WireBuilder wire = WireBuilder.msg(13, 64).end().chunk(2).segment(1, 4096, 0).segment(2, 0, 4096)
                .end().end().body(80);

        assertEquals(DecodeStatus.OK, replies.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(4096, out.writeList().chunkLength(0));
        assertEquals(80, out.bodyLength());
    }

    @Test
    void requesterAcceptsAnUnusedWriteChunkReturnedEmpty() {
        WireBuilder wire = WireBuilder.msg(17, 64).end().chunk(0).chunk(1).segment(1, 100, 0).end().end().body(8);

        assertEquals(DecodeStatus.OK, replies.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(2, out.writeList().chunkCount());
        assertEquals(0, out.writeList().segmentCount(0));
        assertEquals(0, out.writeList().chunkLength(0));
        assertEquals(100, out.writeList().chunkLength(1));
        assertEquals(DecodeStatus.ZERO_SEGMENT_WRITE_CHUNK, calls.decode(wire.toBuffer(), 0, wire.length(), out),
                "a responder never accepts one in a call");
    }

    @Test
    void requesterDecodesAnRdmaNomsgReplyInTheReplyChunk() {
        WireBuilder wire = WireBuilder.nomsg(14, 64).end().end().chunk(1).segment(1, 2000, 0);

        assertEquals(DecodeStatus.OK, replies.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(2000, out.replyChunk().totalLength());
    }

    @Test
    void aDecodeReplacesEverythingFromThePreviousOne() {
        WireBuilder full = WireBuilder.msg(15, 8).read(8, 1, 8, 0).end().chunk(1).segment(2, 8, 0).end()
                .chunk(1).segment(3, 8, 0).body(8);
        WireBuilder empty = WireBuilder.msg(16, 8).noChunks();
        ParsedHeader fresh = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

        assertEquals(DecodeStatus.OK, decodeCall(full));
        assertEquals(DecodeStatus.OK, decodeCall(empty));
        assertEquals(DecodeStatus.OK, calls.decode(empty.toBuffer(), 0, empty.length(), fresh));
        assertTrue(out.contentEquals(fresh), out + " vs " + fresh);
    }
}
