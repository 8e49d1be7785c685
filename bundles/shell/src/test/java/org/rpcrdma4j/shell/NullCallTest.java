package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;

class NullCallTest {
    private static final int XID = 0xCAFE_0001;

    @Test
    void callIsTenWordsOfRfc5531WithAuthNone() {
        ByteBuffer call = NullCall.encode(XID, 100003, 3);
        assertEquals(0, call.position());
        assertEquals(40, call.remaining());
        assertArrayEquals(words(XID, 0 /* CALL */, 2 /* rpcvers */, 100003, 3, 0 /* NULL */, 0, 0 /* cred */, 0, 0 /* verf */),
                toArray(call));
    }

    @Test
    void anArgumentIsAnXdrOpaqueAfterTheHeaderPaddedToAWord() {
        ByteBuffer call = NullCall.encode(XID, 100003, 3, 5);
        assertEquals(0, call.position());
        assertEquals(40 + 4 + 8, call.remaining());
        byte[] bytes = toArray(call);
        ByteBuffer header = ByteBuffer.wrap(bytes, 0, 40);
        assertArrayEquals(toArray(NullCall.encode(XID, 100003, 3)), toArray(header));
        assertEquals(5, ByteBuffer.wrap(bytes).getInt(40));
        assertEquals(NullCall.ARGUMENT_OFFSET, 44);
        assertArrayEquals(new byte[] {0, 1, 2, 3, 4, 0, 0, 0}, java.util.Arrays.copyOfRange(bytes, 44, 52));
        assertArrayEquals(toArray(NullCall.encode(XID, 100003, 3)), toArray(NullCall.encode(XID, 100003, 3, 0)));
    }

    @Test
    void theArgumentPatternRunsModulo251() {
        byte[] a = NullCall.argument(600);
        assertEquals(0, a[0]);
        assertEquals((byte) 250, a[250]);
        assertEquals(0, a[251]);
        assertEquals(97, a[599]);
    }

    @Test
    void acceptedSuccessPasses() {
        assertDoesNotThrow(() -> NullCall.checkReply(reply(XID, 0, 0, 0, 0), XID));
    }

    @Test
    void aVerifierBodyIsSkippedWithItsPadding() {
        // verifier flavor 1, 5 bytes (padded to 8), then SUCCESS
        ByteBuffer r = ByteBuffer.allocate(4 * 9);
        r.putInt(XID).putInt(1).putInt(0).putInt(1).putInt(5).putInt(0x01020304).putInt(0x05000000).putInt(0).putInt(0).flip();
        assertDoesNotThrow(() -> NullCall.checkReply(r, XID));
    }

    @Test
    void theReplyIsNotConsumed() throws IOException {
        ByteBuffer r = reply(XID, 0, 0, 0, 0);
        NullCall.checkReply(r, XID);
        assertEquals(0, r.position());
    }

    @Test
    void progUnavailIsAFailureNamingIt() {
        IOException e = assertThrows(IOException.class, () -> NullCall.checkReply(reply(XID, 0, 0, 0, 1), XID));
        assertTrue(e.getMessage().contains("PROG_UNAVAIL"), e.getMessage());
    }

    @Test
    void deniedCallIsAFailureNamingTheReason() {
        ByteBuffer denied = RpcMessage.putAuthErrorReply(ByteBuffer.allocate(RpcMessage.AUTH_ERROR_REPLY_BYTES), XID,
                RpcMessage.AUTH_REJECTEDCRED).flip();
        IOException e = assertThrows(IOException.class, () -> NullCall.checkReply(denied, XID));
        assertTrue(e.getMessage().contains("AUTH_ERROR"), e.getMessage());
    }

    @Test
    void anotherXidIsAFailure() {
        IOException e = assertThrows(IOException.class, () -> NullCall.checkReply(reply(XID + 1, 0, 0, 0, 0), XID));
        assertTrue(e.getMessage().contains("does not match"), e.getMessage());
    }

    @Test
    void aCallMessageIsNotAReply() {
        assertThrows(IOException.class, () -> NullCall.checkReply(NullCall.encode(XID, 1, 1), XID));
    }

    @Test
    void truncatedRepliesAreFailures() {
        ByteBuffer full = reply(XID, 0, 0, 0, 0);
        for (int length = 0; length < full.remaining(); length += 4) {
            ByteBuffer cut = full.duplicate().limit(length);
            assertThrows(IOException.class, () -> NullCall.checkReply(cut, XID), "cut at " + length);
        }
    }

    @Test
    void anOversizedVerifierIsAFailure() {
        ByteBuffer r = ByteBuffer.allocate(24).putInt(XID).putInt(1).putInt(0).putInt(0).putInt(401).putInt(0).flip();
        assertThrows(IOException.class, () -> NullCall.checkReply(r, XID));
    }

    /** xid, REPLY, reply_stat, verifier flavor, verifier length 0, accept_stat. */
    private static ByteBuffer reply(int xid, int replyStat, int verfFlavor, int verfLength, int acceptStat) {
        return ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES).putInt(xid).putInt(RpcMessage.REPLY)
                .putInt(replyStat).putInt(verfFlavor).putInt(verfLength).putInt(acceptStat).flip();
    }

    private static byte[] words(int... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 4);
        for (int w : words) {
            b.putInt(w);
        }
        return b.array();
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return bytes;
    }
}
