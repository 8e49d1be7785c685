package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The responder-side encoder: write-list echo with trimmed lengths, reply chunk use, errors. */
class ReplyEncoderTest {

    private final ReplyEncoder encoder = new ReplyEncoder();
    private final ByteBuffer buffer = ByteBuffer.allocate(1024);
    private final ParsedHeader call = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

    private void decodeCall(WireBuilder wire) {
        assertEquals(DecodeStatus.OK, new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                .decode(wire.toBuffer(), 0, wire.length(), call));
    }

    private void assertWritten(WireBuilder expected, int length) {
        assertEquals(expected.headerLength(), length);
        assertArrayEquals(expected.toBytes(), Arrays.copyOf(buffer.array(), length));
    }

    /** A READ-like call: two write chunks (3 and 1 segments) and a reply chunk. */
    private WireBuilder callWithWritesAndReply() {
        return WireBuilder.msg(0x5151, 32).end()
                .chunk(3).segment(0x11, 4096, 0x1000L).segment(0x12, 4096, 0x2000L).segment(0x13, 4096, 0x3000L)
                .chunk(1).segment(0x21, 512, 0x4000L).end()
                .chunk(2).segment(0x31, 1024, 0x5000L).segment(0x32, 1024, 0x6000L).body(60);
    }

    @Test
    void msgReplyTrimsSegmentsToTheBytesWrittenAndZeroesAnUnusedChunk() {
        decodeCall(callWithWritesAndReply());

        int n = encoder.encodeMsgReply(buffer, 0, 1024, call, 64, new long[] {5000, 0});

        assertWritten(WireBuilder.msg(0x5151, 64).end()
                .chunk(3).segment(0x11, 4096, 0x1000L).segment(0x12, 904, 0x2000L).segment(0x13, 0, 0x3000L)
                .chunk(1).segment(0x21, 0, 0x4000L).end()
                .end(), n);
        assertEquals(n, ReplyEncoder.replyHeaderLength(call, false));
    }

    @Test
    void msgReplyWithNothingWritten() {
        decodeCall(WireBuilder.msg(1, 1).end().chunk(1).segment(9, 100, 0x10L).end().end().body(8));

        int n = encoder.encodeMsgReply(buffer, 0, 1024, call, 2, null);

        assertWritten(WireBuilder.msg(1, 2).end().chunk(1).segment(9, 0, 0x10L).end().end(), n);
    }

    @Test
    void msgReplyToACallWithoutChunks() {
        decodeCall(WireBuilder.msg(0x77, 1).noChunks().body(100));
        assertWritten(WireBuilder.msg(0x77, 8).noChunks(), encoder.encodeMsgReply(buffer, 0, 1024, call, 8, null));
    }

    @Test
    void nomsgReplyReturnsTheReplyChunkWithTheBytesWritten() {
        decodeCall(callWithWritesAndReply());

        int n = encoder.encodeNomsgReply(buffer, 0, 1024, call, 64, new long[] {12288, 512}, 1500);

        assertWritten(WireBuilder.nomsg(0x5151, 64).end()
                .chunk(3).segment(0x11, 4096, 0x1000L).segment(0x12, 4096, 0x2000L).segment(0x13, 4096, 0x3000L)
                .chunk(1).segment(0x21, 512, 0x4000L).end()
                .chunk(2).segment(0x31, 1024, 0x5000L).segment(0x32, 476, 0x6000L), n);
        assertEquals(n, ReplyEncoder.replyHeaderLength(call, true));
    }

    @Test
    void theEchoDecodesOnTheRequesterSide() {
        decodeCall(callWithWritesAndReply());
        int n = encoder.encodeNomsgReply(buffer, 0, 1024, call, 64, new long[] {1, 2}, 3);
        ParsedHeader reply = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

        assertEquals(DecodeStatus.OK, new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.REQUESTER)
                .decode(buffer, 0, n, reply));
        assertEquals(1, reply.writeList().chunkLength(0));
        assertEquals(2, reply.writeList().chunkLength(1));
        assertEquals(3, reply.replyChunk().totalLength());
    }

    @Test
    void badByteCountsAreRefusedBeforeAnythingIsWritten() {
        decodeCall(callWithWritesAndReply());
        buffer.put(0, (byte) 0x5a);

        assertThrows(IllegalArgumentException.class,
                () -> encoder.encodeMsgReply(buffer, 0, 1024, call, 1, new long[] {12289, 0}));
        assertThrows(IllegalArgumentException.class,
                () -> encoder.encodeMsgReply(buffer, 0, 1024, call, 1, new long[] {-1, 0}));
        assertThrows(IllegalArgumentException.class,
                () -> encoder.encodeMsgReply(buffer, 0, 1024, call, 1, new long[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> encoder.encodeNomsgReply(buffer, 0, 1024, call, 1, null, 2049));
        assertThrows(BufferOverflowException.class,
                () -> encoder.encodeMsgReply(buffer, 0, ReplyEncoder.replyHeaderLength(call, false) - 1, call, 1, null));
        assertEquals(0x5a, buffer.get(0));
    }

    @Test
    void nomsgReplyNeedsAReplyChunk() {
        decodeCall(WireBuilder.msg(1, 1).noChunks());
        assertThrows(IllegalArgumentException.class, () -> encoder.encodeNomsgReply(buffer, 0, 1024, call, 1, null, 0));
    }

    @Test
    void errVersAndErrChunk() {
        assertWritten(WireBuilder.header(0x99, 2, 4, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_VERS).word(1).word(1),
                encoder.encodeErrVers(buffer, 0, 1024, 0x99, 2, 4, 1, 1));
        assertWritten(WireBuilder.header(0x98, 1, 4, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_CHUNK),
                encoder.encodeErrChunk(buffer, 0, 1024, 0x98, 4));
        assertThrows(BufferOverflowException.class, () -> encoder.encodeErrVers(buffer, 0, 27, 1, 1, 1, 1, 1));
        assertThrows(BufferOverflowException.class, () -> encoder.encodeErrChunk(buffer, 0, 19, 1, 1));
    }
}
