package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** Validation of calls and configuration before anything is registered or sent. */
class CallRequestTest {
    private static final ByteBuffer MESSAGE = RpcMessages.call(9, new byte[100]);

    @Test
    void xidIsTheMessagesFirstWord() {
        assertEquals(9, CallRequest.builder(MESSAGE).build().xid());
        assertEquals(0x01020304, CallRequest.raw(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}), true).xid());
    }

    @Test
    void readChunkPositionsMustBeAlignedInsideAndInOrder() {
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(46, 10));
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(0, 10), "position zero is the NOMSG chunk's");
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(44, 0));
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(44, 101), "padded end beyond the message");
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(44, 10).readChunk(52, 4), "overlap");
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).readChunk(60, 4).readChunk(44, 4), "order");
        CallRequest ok = CallRequest.builder(MESSAGE).readChunk(44, 10).readChunk(56, 4).build();
        assertEquals(MESSAGE.remaining() - 12 - 4, ok.inlineStreamLength());
    }

    @Test
    void sinksMustBeWritableDirectBuffers() {
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).writeChunk(ByteBuffer.allocate(8)));
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).replyChunk(ByteBuffer.allocateDirect(8).asReadOnlyBuffer()));
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(MESSAGE).replyChunk(0));
        CallRequest.Builder b = CallRequest.builder(MESSAGE);
        for (int i = 0; i < CallRequest.MAX_WRITE_CHUNKS; i++) {
            b.writeChunk(1);
        }
        assertThrows(IllegalArgumentException.class, () -> b.writeChunk(1));
    }

    @Test
    void messagesShorterThanAnXidAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> CallRequest.builder(ByteBuffer.allocate(3)));
        assertTrue(!CallRequest.raw(ByteBuffer.allocate(3), true).expectsReply(), "no xid, nothing to match a reply by");
    }

    @Test
    void configRefusesSizesRfc8797CannotCarry() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().receiveInlineSize(1500));
        assertTrue(e.getMessage().contains("receiveInlineSize"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().sendInlineSize(512 * 1024));
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().maxCredits(0));
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().maxSegmentLength(0));
    }
}
