package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Every rejection the decoder makes, each with its own input. */
class HeaderDecoderRejectTest {

    private static final RpcRdmaLimits SMALL = RpcRdmaLimits.builder()
            .maxReadSegments(4).maxReadChunks(2).maxWriteChunks(2).maxSegmentsPerChunk(3)
            .maxReadBytes(10_000).maxWriteBytes(20_000).maxReplyBytes(30_000).build();

    private final HeaderDecoder calls = new HeaderDecoder(SMALL, HeaderDecoder.Role.RESPONDER);
    private final HeaderDecoder replies = new HeaderDecoder(SMALL, HeaderDecoder.Role.REQUESTER);
    private final ParsedHeader out = new ParsedHeader(SMALL);

    private DecodeStatus call(WireBuilder wire) {
        return calls.decode(wire.toBuffer(), 0, wire.length(), out);
    }

    private DecodeStatus reply(WireBuilder wire) {
        return replies.decode(wire.toBuffer(), 0, wire.length(), out);
    }

    private void assertMalformed(DecodeStatus expected, DecodeStatus actual) {
        assertEquals(expected, actual);
        assertEquals(DecodeStatus.Outcome.MALFORMED, actual.outcome());
        assertEquals(RpcRdma.ERR_CHUNK, actual.errorCode());
    }

    @Test
    void truncatedFixedHeader() {
        byte[] bytes = WireBuilder.msg(0x0a0b0c0d, 2).noChunks().toBytes();
        for (int length = 0; length < 16; length++) {
            assertMalformed(DecodeStatus.TRUNCATED_FIXED_HEADER,
                    calls.decode(java.nio.ByteBuffer.wrap(bytes), 0, length, out));
        }
        assertEquals(0x0a0b0c0d, out.xid(), "the xid is kept when its word arrived");
    }

    @Test
    void wrongVersionIsNotMalformed() {
        DecodeStatus status = call(WireBuilder.header(77, 2, 8, RpcRdma.RDMA_MSG).noChunks());
        assertEquals(DecodeStatus.WRONG_VERSION, status);
        assertEquals(DecodeStatus.Outcome.WRONG_VERSION, status.outcome());
        assertEquals(RpcRdma.ERR_VERS, status.errorCode());
        assertEquals(77, out.xid());
        assertEquals(2, out.vers());
    }

    @Test
    void unknownProcedure() {
        assertMalformed(DecodeStatus.UNKNOWN_PROCEDURE, call(WireBuilder.header(1, 1, 1, 5).noChunks()));
        assertMalformed(DecodeStatus.UNKNOWN_PROCEDURE, call(WireBuilder.header(1, 1, 1, -1).noChunks()));
    }

    @Test
    void rdmaMsgpIsRecognisedAndRejected() {
        WireBuilder msgp = WireBuilder.header(1, 1, 1, RpcRdma.RDMA_MSGP).word(4).word(1024).noChunks();
        assertMalformed(DecodeStatus.MSGP_NOT_SUPPORTED, call(msgp));
    }

    @Test
    void discriminatorOtherThanZeroOrOne() {
        assertMalformed(DecodeStatus.BAD_DISCRIMINATOR, call(WireBuilder.msg(1, 1).word(2).end().end()));
        assertMalformed(DecodeStatus.BAD_DISCRIMINATOR, call(WireBuilder.msg(1, 1).end().word(-1).end()));
        assertMalformed(DecodeStatus.BAD_DISCRIMINATOR, call(WireBuilder.msg(1, 1).end().end().word(3)));
    }

    @Test
    void readListThatDoesNotEndInsideTheBuffer() {
        assertMalformed(DecodeStatus.READ_LIST_TRUNCATED, call(WireBuilder.msg(1, 1)));
        assertMalformed(DecodeStatus.READ_LIST_TRUNCATED, call(WireBuilder.msg(1, 1).read(4, 1, 4, 0)));
        assertMalformed(DecodeStatus.READ_LIST_TRUNCATED,
                call(WireBuilder.msg(1, 1).word(1).word(4).word(1).word(4)));
    }

    @Test
    void writeListThatDoesNotEndInsideTheBuffer() {
        assertMalformed(DecodeStatus.WRITE_LIST_TRUNCATED, call(WireBuilder.msg(1, 1).end()));
        assertMalformed(DecodeStatus.WRITE_LIST_TRUNCATED, call(WireBuilder.msg(1, 1).end().word(1)));
        assertMalformed(DecodeStatus.WRITE_LIST_TRUNCATED,
                call(WireBuilder.msg(1, 1).end().chunk(1).segment(1, 1, 0)));
    }

    @Test
    void replyChunkThatDoesNotEndInsideTheBuffer() {
        assertMalformed(DecodeStatus.REPLY_CHUNK_TRUNCATED, call(WireBuilder.msg(1, 1).end().end()));
        assertMalformed(DecodeStatus.REPLY_CHUNK_TRUNCATED, call(WireBuilder.msg(1, 1).end().end().word(1)));
    }

    @Test
    void segmentCountWhoseByteSizeOverflows32Bits() {
        // 0x10000000 segments * 16 bytes = 2^32: wraps to 0 in 32-bit arithmetic (CVE-2024-53151).
        WireBuilder write = WireBuilder.msg(1, 1).end().chunk(0x1000_0000).segment(1, 1, 0).end().end();
        WireBuilder reply = WireBuilder.msg(1, 1).end().end().chunk(0x1000_0001).segment(1, 1, 0);
        WireBuilder negative = WireBuilder.msg(1, 1).end().chunk(-1).segment(1, 1, 0).end().end();

        assertMalformed(DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER, call(write));
        assertMalformed(DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER, call(reply));
        assertMalformed(DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER, call(negative));
    }

    @Test
    void segmentCountThatExceedsTheBuffer() {
        WireBuilder write = WireBuilder.msg(1, 1).end().chunk(3).segment(1, 1, 0).segment(2, 1, 0).end().end();
        WireBuilder reply = WireBuilder.msg(1, 1).end().end().chunk(2).segment(1, 1, 0);

        assertMalformed(DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER, call(write));
        assertMalformed(DecodeStatus.SEGMENT_COUNT_BEYOND_BUFFER, call(reply));
    }

    @Test
    void writeChunkWithZeroSegments() {
        // CVE-2026-93228: a zero count must not let the walk wander; the whole message is chunk prefixes.
        WireBuilder wire = WireBuilder.msg(1, 1).end();
        for (int i = 0; i < 100; i++) {
            wire.chunk(0);
        }
        assertMalformed(DecodeStatus.ZERO_SEGMENT_WRITE_CHUNK, call(wire.end().end()));
    }

    @Test
    void replyChunkWithZeroSegments() {
        assertMalformed(DecodeStatus.ZERO_SEGMENT_REPLY_CHUNK, call(WireBuilder.msg(1, 1).end().end().chunk(0)));
    }

    @Test
    void readPositionNotAMultipleOfFour() {
        assertMalformed(DecodeStatus.MISALIGNED_READ_POSITION,
                call(WireBuilder.msg(1, 1).read(6, 1, 4, 0).end().end().end().body(8)));
    }

    @Test
    void readPositionBeyondTheInlineBody() {
        assertMalformed(DecodeStatus.READ_POSITION_BEYOND_INLINE,
                call(WireBuilder.msg(1, 1).read(24, 1, 4, 0).end().end().end().body(20)));
        // Second chunk: position 40 - 8 padded bytes before it = 32 > 20.
        assertMalformed(DecodeStatus.READ_POSITION_BEYOND_INLINE,
                call(WireBuilder.msg(1, 1).read(8, 1, 8, 0).read(40, 2, 4, 0).end().end().end().body(20)));
        // Huge positions do not wrap around.
        assertMalformed(DecodeStatus.READ_POSITION_BEYOND_INLINE,
                call(WireBuilder.msg(1, 1).read(0xFFFF_FFFC, 1, 4, 0).end().end().end().body(20)));
    }

    @Test
    void readPositionBeyondThePositionZeroChunkOfAnRdmaNomsg() {
        // The call chunk is 100 bytes: a data chunk can go at most at offset 100 of it.
        assertMalformed(DecodeStatus.READ_POSITION_BEYOND_INLINE,
                call(WireBuilder.nomsg(1, 1).read(0, 1, 100, 0).read(104, 2, 4, 0).end().end().end()));
        assertEquals(DecodeStatus.OK,
                call(WireBuilder.nomsg(1, 1).read(0, 1, 100, 0).read(100, 2, 4, 0).end().end().end()));
    }

    @Test
    void overlappingReadChunks() {
        // Chunk at 8 holds 16 bytes (to 24 in the call); a chunk at 16 would start inside it.
        assertMalformed(DecodeStatus.OVERLAPPING_READ_CHUNKS,
                call(WireBuilder.msg(1, 1).read(16, 2, 4, 0).read(8, 1, 16, 0).end().end().end().body(32)));
        // Round-up counts: a 5-byte chunk at 8 occupies 8 bytes, so 12 overlaps.
        assertMalformed(DecodeStatus.OVERLAPPING_READ_CHUNKS,
                call(WireBuilder.msg(1, 1).read(8, 1, 5, 0).read(12, 2, 4, 0).end().end().end().body(32)));
    }

    @Test
    void moreReadSegmentsThanTheLimit() {
        WireBuilder wire = WireBuilder.msg(1, 1);
        for (int i = 0; i < 5; i++) {
            wire.read(8, i, 1, 0);
        }
        assertMalformed(DecodeStatus.TOO_MANY_READ_SEGMENTS, call(wire.end().end().end().body(8)));
    }

    @Test
    void moreReadChunksThanTheLimit() {
        assertMalformed(DecodeStatus.TOO_MANY_READ_CHUNKS, call(WireBuilder.msg(1, 1)
                .read(4, 1, 4, 0).read(8, 2, 4, 0).read(12, 3, 4, 0).end().end().end().body(8)));
    }

    @Test
    void moreWriteChunksThanTheLimit() {
        WireBuilder wire = WireBuilder.msg(1, 1).end();
        for (int i = 0; i < 3; i++) {
            wire.chunk(1).segment(i, 1, 0);
        }
        assertMalformed(DecodeStatus.TOO_MANY_WRITE_CHUNKS, call(wire.end().end()));
    }

    @Test
    void moreWriteSegmentsThanTheLimit() {
        WireBuilder wire = WireBuilder.msg(1, 1).end().chunk(4);
        for (int i = 0; i < 4; i++) {
            wire.segment(i, 1, 0);
        }
        assertMalformed(DecodeStatus.TOO_MANY_WRITE_SEGMENTS, call(wire.end().end()));
    }

    @Test
    void moreReplySegmentsThanTheLimit() {
        WireBuilder wire = WireBuilder.msg(1, 1).end().end().chunk(4);
        for (int i = 0; i < 4; i++) {
            wire.segment(i, 1, 0);
        }
        assertMalformed(DecodeStatus.TOO_MANY_REPLY_SEGMENTS, call(wire));
    }

    @Test
    void moreReadBytesThanTheLimit() {
        assertMalformed(DecodeStatus.READ_BYTES_OVER_LIMIT, call(WireBuilder.msg(1, 1)
                .read(4, 1, 5000, 0).read(4, 2, 5001, 0).end().end().end().body(8)));
    }

    @Test
    void moreWriteBytesThanTheLimit() {
        assertMalformed(DecodeStatus.WRITE_BYTES_OVER_LIMIT, call(WireBuilder.msg(1, 1).end()
                .chunk(1).segment(1, 10_000, 0).chunk(1).segment(2, 10_001, 0).end().end()));
    }

    @Test
    void moreReplyBytesThanTheLimit() {
        assertMalformed(DecodeStatus.REPLY_BYTES_OVER_LIMIT,
                call(WireBuilder.msg(1, 1).end().end().chunk(1).segment(1, 30_001, 0)));
    }

    @Test
    void rdmaMsgCarryingAPositionZeroReadChunk() {
        assertMalformed(DecodeStatus.POSITION_ZERO_CHUNK_IN_MSG,
                call(WireBuilder.msg(1, 1).read(0, 1, 100, 0).end().end().end().body(8)));
    }

    @Test
    void rdmaNomsgCallWithoutAPositionZeroReadChunk() {
        assertMalformed(DecodeStatus.NOMSG_WITHOUT_POSITION_ZERO_CHUNK, call(WireBuilder.nomsg(1, 1).noChunks()));
        assertMalformed(DecodeStatus.NOMSG_WITHOUT_POSITION_ZERO_CHUNK,
                call(WireBuilder.nomsg(1, 1).read(4, 1, 100, 0).end().end().end()));
    }

    @Test
    void rdmaNomsgWithInlineBytes() {
        assertMalformed(DecodeStatus.NOMSG_WITH_INLINE_BODY,
                call(WireBuilder.nomsg(1, 1).read(0, 1, 100, 0).end().end().end().body(4)));
        assertMalformed(DecodeStatus.NOMSG_WITH_INLINE_BODY,
                reply(WireBuilder.nomsg(1, 1).end().end().chunk(1).segment(1, 100, 0).body(4)));
    }

    @Test
    void replyCarryingAReadList() {
        assertMalformed(DecodeStatus.READ_LIST_IN_REPLY,
                reply(WireBuilder.msg(1, 1).read(4, 1, 4, 0).end().end().end().body(8)));
    }

    @Test
    void rdmaNomsgReplyWithoutAReplyChunk() {
        assertMalformed(DecodeStatus.NOMSG_WITHOUT_REPLY_CHUNK, reply(WireBuilder.nomsg(1, 1).noChunks()));
    }

    @Test
    void truncatedErrorBody() {
        assertMalformed(DecodeStatus.TRUNCATED_ERROR_BODY, call(WireBuilder.header(1, 1, 1, RpcRdma.RDMA_ERROR)));
        assertMalformed(DecodeStatus.TRUNCATED_ERROR_BODY,
                call(WireBuilder.header(1, 1, 1, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_VERS).word(1)));
    }

    @Test
    void unknownErrorCode() {
        assertMalformed(DecodeStatus.UNKNOWN_ERROR_CODE,
                call(WireBuilder.header(1, 1, 1, RpcRdma.RDMA_ERROR).word(3)));
    }

    @Test
    void aHolderSizedForSmallerLimitsIsRefused() {
        HeaderDecoder big = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);
        WireBuilder wire = WireBuilder.msg(1, 1).noChunks();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> big.decode(wire.toBuffer(), 0, wire.length(), out));
        assertEquals(true, e.getMessage().contains("ParsedHeader"));
    }

    @Test
    void aRangeOutsideTheBufferIsAProgrammingError() {
        WireBuilder wire = WireBuilder.msg(1, 1).noChunks();
        assertThrows(IndexOutOfBoundsException.class, () -> calls.decode(wire.toBuffer(), 4, wire.length(), out));
    }

    @Test
    void everyMalformedStatusHasATestAbove() throws Exception {
        int malformed = 0;
        for (DecodeStatus status : DecodeStatus.values()) {
            if (status.outcome() == DecodeStatus.Outcome.MALFORMED) {
                malformed++;
            }
        }
        assertEquals(28, malformed, "a new rejection needs its own test here");
    }
}
