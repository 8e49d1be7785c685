package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Constants classes, the limits object and its validation. */
class ConstantsAndLimitsTest {

    @Test
    void procedureAndErrorNames() {
        assertEquals("RDMA_MSG", RpcRdma.toString(RpcRdma.RDMA_MSG));
        assertEquals("RDMA_NOMSG", RpcRdma.toString(1));
        assertEquals("RDMA_MSGP", RpcRdma.toString(2));
        assertEquals("RDMA_DONE", RpcRdma.toString(3));
        assertEquals("RDMA_ERROR", RpcRdma.toString(4));
        assertEquals("RDMA_PROC(4294967295)", RpcRdma.toString(-1));
        assertEquals("ERR_VERS", RpcRdma.errorToString(1));
        assertEquals("ERR_CHUNK", RpcRdma.errorToString(2));
        assertEquals("ERR(7)", RpcRdma.errorToString(7));
        assertEquals("REMOTE_INVALIDATE", RpcRdmaCm.toString(1));
        assertEquals("REMOTE_INVALIDATE|0x80", RpcRdmaCm.toString(0x81));
        assertEquals("", RpcRdmaCm.toString(0));
    }

    @Test
    void sizesInWords() {
        assertEquals(4, RpcRdma.SEGMENT_WORDS);
        assertEquals(5, RpcRdma.READ_SEGMENT_WORDS);
        assertEquals(28, Xdr.wordsToBytes(RpcRdma.MIN_MSG_HEADER_WORDS));
        assertEquals(RpcRdma.BODY_OFFSET, RpcRdma.PROC_OFFSET + 4);
    }

    @Test
    void statusOutcomes() {
        assertTrue(DecodeStatus.OK.isOk());
        assertEquals(0, DecodeStatus.OK.errorCode());
        assertEquals(RpcRdma.ERR_VERS, DecodeStatus.WRONG_VERSION.errorCode());
        assertEquals(RpcRdma.ERR_CHUNK, DecodeStatus.OVERLAPPING_READ_CHUNKS.errorCode());
    }

    @Test
    void defaultsAreSafe() {
        RpcRdmaLimits d = RpcRdmaLimits.DEFAULTS;
        assertEquals(64, d.maxReadSegments());
        assertEquals(8, d.maxReadChunks());
        assertEquals(4, d.maxWriteChunks());
        assertEquals(64, d.maxSegmentsPerChunk());
        assertEquals(16L << 20, d.maxReadBytes());
        assertTrue(new ParsedHeader(d).fits(d));
        assertTrue(d.toString().contains("maxWriteChunks=4"));
    }

    @Test
    void outOfRangeValuesNameTheSetting() {
        assertNamed("maxReadSegments", () -> RpcRdmaLimits.builder().maxReadSegments(0));
        assertNamed("maxReadChunks", () -> RpcRdmaLimits.builder().maxReadChunks(RpcRdmaLimits.MAX_COUNT + 1));
        assertNamed("maxWriteChunks", () -> RpcRdmaLimits.builder().maxWriteChunks(-1));
        assertNamed("maxSegmentsPerChunk", () -> RpcRdmaLimits.builder().maxSegmentsPerChunk(0));
        assertNamed("maxReadBytes", () -> RpcRdmaLimits.builder().maxReadBytes(0));
        assertNamed("maxWriteBytes", () -> RpcRdmaLimits.builder().maxWriteBytes(RpcRdmaLimits.MAX_BYTES + 1));
        assertNamed("maxReplyBytes", () -> RpcRdmaLimits.builder().maxReplyBytes(-5));
        assertNamed("maxReadChunks", () -> RpcRdmaLimits.builder().maxReadSegments(2).maxReadChunks(3).build());
    }

    @Test
    void aSmallerHolderDoesNotFitLargerLimits() {
        RpcRdmaLimits small = RpcRdmaLimits.builder().maxWriteChunks(1).build();
        assertEquals(false, new ParsedHeader(small).fits(RpcRdmaLimits.DEFAULTS));
        assertEquals(true, new ParsedHeader(RpcRdmaLimits.DEFAULTS).fits(small));
    }

    private static void assertNamed(String setting, Runnable action) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action::run);
        assertTrue(e.getMessage().startsWith(setting), e.getMessage());
    }
}
