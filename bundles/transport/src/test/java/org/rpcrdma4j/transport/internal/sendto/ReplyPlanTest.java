package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;

/**
 * ReplyPlanTest - the choice of message for a reply and what it needs, with exact numbers: an
 * RDMA_MSG header without chunks is 28 bytes; a write chunk of one segment adds 24.
 */
class ReplyPlanTest {
    private static final int SEND_LIMIT = 1024;
    private static final int STAGING = 64 * 1024;
    private static final int DEPTH = 16;
    private static final int HANDLE = 0x51;

    private final ReplyPlan plan = new ReplyPlan(SEND_LIMIT, STAGING, DEPTH);

    @Test
    void aReplyThatFitsTheSendGoesInline() {
        plan.plan(call(new long[0], new long[0]), reply(SEND_LIMIT - 28), -1, false, 0);
        assertEquals(ReplyPlan.Mode.INLINE, plan.mode());
        assertEquals(SEND_LIMIT - 28, plan.reducedLength());
        assertEquals(0, plan.itemLength());
        assertEquals(-1, plan.itemOffset());
        assertEquals(0, plan.stagingBytes(), "nothing is written");
        assertEquals(1, plan.requests(), "the SEND alone");
        assertFalse(plan.invalidate());
    }

    @Test
    void aDdpItemGoesToTheWriteChunkAndTheRestInline() {
        // 16 bytes of RPC header, the item's length word, 4097 bytes and 3 of round-up, 8 after it
        ByteBuffer reply = reply(16 + 4 + 4100 + 8);
        reply.putInt(16, 4097);
        plan.plan(call(new long[] {2048, 8192}, new long[0]), reply, 16, true, HANDLE);
        assertEquals(ReplyPlan.Mode.INLINE, plan.mode());
        assertEquals(20, plan.itemOffset(), "after the length word");
        assertEquals(4097, plan.itemLength());
        assertEquals(4100, plan.itemPadded());
        assertEquals(28, plan.reducedLength(), "the length word stays, the item and its round-up leave");
        assertEquals(4097, plan.stagingBytes());
        assertEquals(3, plan.requests(), "a WRITE into each of the two segments, and the SEND");
        assertTrue(plan.invalidate());
        assertEquals(HANDLE, plan.invalidateKey());
    }

    @Test
    void anItemLargerThanTheWriteChunkStaysInTheMessage() {
        ByteBuffer reply = reply(16 + 4 + 200);
        reply.putInt(16, 200);
        plan.plan(call(new long[] {100}, new long[0]), reply, 16, false, HANDLE);
        assertEquals(ReplyPlan.Mode.INLINE, plan.mode());
        assertEquals(0, plan.itemLength());
        assertEquals(220, plan.reducedLength());
        assertEquals(1, plan.requests());
        assertEquals(0, plan.invalidateKey(), "no key without invalidation");
    }

    @Test
    void aReplyTooLargeToSendGoesThroughTheReplyChunk() {
        plan.plan(call(new long[0], new long[] {4096, 4096}), reply(6000), -1, false, 0);
        assertEquals(ReplyPlan.Mode.REPLY_CHUNK, plan.mode());
        assertEquals(6000, plan.reducedLength());
        assertEquals(0, plan.bodyStart());
        assertEquals(6000, plan.stagingBytes());
        assertEquals(3, plan.requests(), "6000 bytes fill both segments: two WRITEs and the SEND");
    }

    @Test
    void withAnItemTheMessageIsStagedAfterItOnTheNextCacheLine() {
        ByteBuffer reply = reply(16 + 4 + 100 + 2000);
        reply.putInt(16, 100);
        plan.plan(call(new long[] {4096}, new long[] {8192}), reply, 16, false, 0);
        assertEquals(ReplyPlan.Mode.REPLY_CHUNK, plan.mode());
        assertEquals(100, plan.itemLength());
        assertEquals(2020, plan.reducedLength());
        assertEquals(128, plan.bodyStart(), "100 bytes rounded up to a 64-byte line");
        assertEquals(128 + 2020, plan.stagingBytes());
        assertEquals(3, plan.requests(), "one WRITE of the item, one into the reply chunk, the SEND");
    }

    @Test
    void aReplyThatFitsNowhereIsTooLarge() {
        plan.plan(call(new long[0], new long[0]), reply(SEND_LIMIT - 27), -1, false, 0);
        assertEquals(ReplyPlan.Mode.TOO_LARGE, plan.mode(), "one byte past the send limit, no reply chunk");
        plan.plan(call(new long[0], new long[] {4096}), reply(4100), -1, false, 0);
        assertEquals(ReplyPlan.Mode.TOO_LARGE, plan.mode(), "the reply chunk is 4 bytes short");
        ReplyPlan small = new ReplyPlan(SEND_LIMIT, 4096, DEPTH);
        small.plan(call(new long[0], new long[] {8192}), reply(4097), -1, false, 0);
        assertEquals(ReplyPlan.Mode.TOO_LARGE, small.mode(), "more than the staging could ever hold");
        ReplyPlan shallow = new ReplyPlan(SEND_LIMIT, STAGING, 2);
        shallow.plan(call(new long[0], new long[] {1024, 1024, 1024}), reply(3000), -1, false, 0);
        assertEquals(ReplyPlan.Mode.TOO_LARGE, shallow.mode(), "three WRITEs and a SEND exceed a send queue of 2");
    }

    /** @return a decoded RDMA_MSG call with one write chunk of these segments (if any) and this reply chunk (if any) */
    private static ParsedHeader call(long[] writeSegments, long[] replySegments) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        HeaderWriter w = new HeaderWriter().wrap(b, 0, b.capacity()).fixedHeader(0x1234, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG);
        long offset = 0x10000;
        if (writeSegments.length > 0) {
            w.writeChunk(writeSegments.length);
            for (long length : writeSegments) {
                w.segment(HANDLE, length, offset);
                offset += length;
            }
        }
        if (replySegments.length > 0) {
            w.replyChunk(replySegments.length);
            for (long length : replySegments) {
                w.segment(HANDLE, length, offset);
                offset += length;
            }
        }
        int n = w.finish();
        b.putInt(n, 0x1234).putInt(n + 4, 0);
        ParsedHeader header = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
        DecodeStatus status = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                .decode(b, 0, n + 8, header);
        assertEquals(DecodeStatus.OK, status);
        return header;
    }

    private static ByteBuffer reply(int length) {
        return ByteBuffer.allocate(length);
    }
}
