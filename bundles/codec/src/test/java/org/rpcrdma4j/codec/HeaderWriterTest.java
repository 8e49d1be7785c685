package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The requester-side (and generic) encoder, byte for byte against hand-laid vectors. */
class HeaderWriterTest {

    private final ByteBuffer buffer = ByteBuffer.allocate(512);
    private final HeaderWriter writer = new HeaderWriter();

    private void assertWritten(WireBuilder expected, int length) {
        assertEquals(expected.headerLength(), length);
        assertArrayEquals(expected.toBytes(), Arrays.copyOf(buffer.array(), length));
    }

    @Test
    void shortCallWithoutChunks() {
        int n = writer.wrap(buffer, 0, 512).fixedHeader(0xdeadbeef, 1, 32, RpcRdma.RDMA_MSG).finish();
        assertWritten(WireBuilder.msg(0xdeadbeef, 32).noChunks(), n);
    }

    @Test
    void callWithReadListWriteListAndReplyChunk() {
        int n = writer.wrap(buffer, 0, 512).fixedHeader(7, 1, 16, RpcRdma.RDMA_MSG)
                .readChunk(100, 0x11, 4096, 0x1_0000_0000L).readChunk(100, 0x12, 10, 0x2000L)
                .writeChunk(2).segment(0x21, 8192, 0x3000L).segment(0x22, 0xFFFF_FFFFL, -1L)
                .writeChunk(1).segment(0x23, 1, 0L)
                .replyChunk(1).segment(0x31, 1024, 0x4000L)
                .finish();
        assertWritten(WireBuilder.msg(7, 16)
                .read(100, 0x11, 4096, 0x1_0000_0000L).read(100, 0x12, 10, 0x2000L).end()
                .chunk(2).segment(0x21, 8192, 0x3000L).segment(0x22, -1, -1L)
                .chunk(1).segment(0x23, 1, 0L).end()
                .chunk(1).segment(0x31, 1024, 0x4000L), n);
    }

    @Test
    void longCallWithOnlyAReplyChunk() {
        int n = writer.wrap(buffer, 0, 512).fixedHeader(8, 1, 16, RpcRdma.RDMA_NOMSG)
                .readChunk(0, 0x41, 3000, 0L).replyChunk(2).segment(1, 2, 3).segment(4, 5, 6).finish();
        assertWritten(WireBuilder.nomsg(8, 16).read(0, 0x41, 3000, 0L).end().end()
                .chunk(2).segment(1, 2, 3).segment(4, 5, 6), n);
    }

    @Test
    void writeListWithoutReadList() {
        int n = writer.wrap(buffer, 0, 512).fixedHeader(9, 1, 1, RpcRdma.RDMA_MSG)
                .writeChunk(1).segment(1, 2, 3).finish();
        assertWritten(WireBuilder.msg(9, 1).end().chunk(1).segment(1, 2, 3).end().end(), n);
    }

    @Test
    void emptyWriteChunkForAReply() {
        int n = writer.wrap(buffer, 0, 512).fixedHeader(9, 1, 1, RpcRdma.RDMA_MSG)
                .writeChunk(0).writeChunk(1).segment(1, 2, 3).finish();
        assertWritten(WireBuilder.msg(9, 1).end().chunk(0).chunk(1).segment(1, 2, 3).end().end(), n);
    }

    @Test
    void errorsAndDone() {
        assertWritten(WireBuilder.header(1, 1, 2, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_VERS).word(1).word(1),
                writer.wrap(buffer, 0, 512).fixedHeader(1, 1, 2, RpcRdma.RDMA_ERROR).errVers(1, 1).finish());
        assertWritten(WireBuilder.header(1, 1, 2, RpcRdma.RDMA_ERROR).word(RpcRdma.ERR_CHUNK),
                writer.wrap(buffer, 0, 512).fixedHeader(1, 1, 2, RpcRdma.RDMA_ERROR).errChunk().finish());
        assertWritten(WireBuilder.header(1, 1, 2, RpcRdma.RDMA_DONE),
                writer.wrap(buffer, 0, 512).fixedHeader(1, 1, 2, RpcRdma.RDMA_DONE).finish());
    }

    @Test
    void writesAtAnOffsetAndLeavesTheBufferStateAlone() {
        ByteBuffer target = ByteBuffer.allocate(64);
        int n = writer.wrap(target, 12, 40).fixedHeader(5, 1, 1, RpcRdma.RDMA_MSG).finish();
        byte[] expected = WireBuilder.msg(5, 1).noChunks().toBytes();
        assertArrayEquals(expected, Arrays.copyOfRange(target.array(), 12, 12 + n));
        assertEquals(0, target.position());
        assertEquals(0, target.get(11));
    }

    @Test
    void misuseIsRefused() {
        writer.wrap(buffer, 0, 512);
        assertThrows(IllegalStateException.class, () -> writer.readChunk(4, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> writer.fixedHeader(1, 1, 1, RpcRdma.RDMA_MSGP));
        writer.fixedHeader(1, 1, 1, RpcRdma.RDMA_MSG);
        assertThrows(IllegalArgumentException.class, () -> writer.readChunk(6, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> writer.readChunk(1L << 32, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> writer.readChunk(4, 1, 1L << 32, 0));
        assertThrows(IllegalArgumentException.class, () -> writer.writeChunk(-1));
        assertThrows(IllegalArgumentException.class, () -> writer.replyChunk(0));
        writer.writeChunk(2).segment(1, 1, 0);
        IllegalStateException e = assertThrows(IllegalStateException.class, writer::finish);
        assertTrue(e.getMessage().contains("1 segments missing"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> writer.errChunk());

        writer.wrap(buffer, 0, 512).fixedHeader(1, 1, 1, RpcRdma.RDMA_ERROR);
        assertThrows(IllegalStateException.class, writer::finish);
    }

    @Test
    void tooSmallABufferOverflows() {
        writer.wrap(buffer, 0, 24).fixedHeader(1, 1, 1, RpcRdma.RDMA_MSG);
        assertThrows(BufferOverflowException.class, writer::finish);
    }

    @Test
    void encodeWritesBackADecodedHeaderWithReadsSorted() {
        WireBuilder unsorted = WireBuilder.msg(3, 4).read(40, 0xA, 4, 1).read(8, 0xB, 6, 2).read(40, 0xC, 4, 3)
                .end().chunk(1).segment(5, 6, 7).end().chunk(1).segment(8, 9, 10).body(40);
        ParsedHeader parsed = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
        assertEquals(DecodeStatus.OK, new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                .decode(unsorted.toBuffer(), 0, unsorted.length(), parsed));

        int n = writer.wrap(buffer, 0, 512).encode(parsed);

        assertWritten(WireBuilder.msg(3, 4).read(8, 0xB, 6, 2).read(40, 0xA, 4, 1).read(40, 0xC, 4, 3)
                .end().chunk(1).segment(5, 6, 7).end().chunk(1).segment(8, 9, 10), n);
    }
}
