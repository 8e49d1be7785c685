package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** RpcMessageTest - the RFC 5531 header: byte-exact writers, readers over sound and malformed input. */
class RpcMessageTest {

    /** A call to NFS (100003) version 3 procedure 1 (GETATTR), AUTH_NONE both, xid 0x0a0b0c0d. */
    private static final byte[] NULL_AUTH_CALL = {
        0x0a, 0x0b, 0x0c, 0x0d, // xid
        0, 0, 0, 0,             // CALL
        0, 0, 0, 2,             // rpcvers 2
        0, 0x01, (byte) 0x86, (byte) 0xa3, // prog 100003
        0, 0, 0, 3,             // vers 3
        0, 0, 0, 1,             // proc 1
        0, 0, 0, 0, 0, 0, 0, 0, // cred AUTH_NONE, length 0
        0, 0, 0, 0, 0, 0, 0, 0, // verf AUTH_NONE, length 0
    };

    /** An accepted SUCCESS reply to xid 7 with an AUTH_NONE verifier. */
    private static final byte[] SUCCESS_REPLY = {
        0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0, // xid, REPLY, MSG_ACCEPTED
        0, 0, 0, 0, 0, 0, 0, 0,             // verf AUTH_NONE, length 0
        0, 0, 0, 0,                         // SUCCESS
    };

    @Test
    void offsetsAndSizesAreThoseOfRfc5531() {
        assertEquals(4, RpcMessage.MSG_TYPE_OFFSET);
        assertEquals(8, RpcMessage.TYPED_MESSAGE_BYTES);
        assertEquals(8, RpcMessage.RPCVERS_OFFSET);
        assertEquals(12, RpcMessage.PROG_OFFSET);
        assertEquals(16, RpcMessage.VERS_OFFSET);
        assertEquals(20, RpcMessage.PROC_OFFSET);
        assertEquals(24, RpcMessage.CREDENTIAL_OFFSET);
        assertEquals(40, RpcMessage.NULL_AUTH_CALL_HEADER_BYTES);
        assertEquals(24, RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        assertEquals(20, RpcMessage.AUTH_ERROR_REPLY_BYTES);
    }

    @Test
    void aCallHeaderIsWrittenByteForByte() {
        ByteBuffer b = ByteBuffer.allocate(40);
        RpcMessage.putCallHeader(b, 0x0a0b0c0d, 100_003, 3, 1);
        assertEquals(40, b.position());
        assertArrayEquals(NULL_AUTH_CALL, b.array());
    }

    @Test
    void repliesAreWrittenByteForByte() {
        ByteBuffer accepted = ByteBuffer.allocate(24);
        RpcMessage.putAcceptedReplyHeader(accepted, 7, RpcMessage.SUCCESS);
        assertArrayEquals(SUCCESS_REPLY, accepted.array());

        ByteBuffer denied = ByteBuffer.allocate(20);
        RpcMessage.putAuthErrorReply(denied, 7, RpcMessage.AUTH_BADVERF);
        assertArrayEquals(new byte[] {0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 3}, denied.array());
    }

    @Test
    void aCallIsReadFromThePositionWithoutMovingIt() {
        ByteBuffer b = ByteBuffer.allocate(3 + NULL_AUTH_CALL.length + 4);
        b.position(3);
        b.put(NULL_AUTH_CALL).putInt(0x11223344).position(3);
        assertEquals(RpcMessage.CALL, RpcMessage.messageType(b));
        assertTrue(RpcMessage.isCall(b));
        assertFalse(RpcMessage.isReply(b));
        assertEquals(32, RpcMessage.verifierOffset(b));
        assertEquals(40, RpcMessage.argumentsOffset(b));
        assertEquals(0x11223344, b.getInt(b.position() + RpcMessage.argumentsOffset(b)));
        assertEquals(100_003, b.getInt(b.position() + RpcMessage.PROG_OFFSET));
        assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(b), "a call has no results");
        assertEquals(3, b.position());
        assertEquals(b.capacity(), b.limit());
    }

    @Test
    void anAuthSysCredentialIsSkippedWithItsPadding() {
        // AUTH_SYS body of 5 bytes claimed: padded to 8.
        ByteBuffer b = ByteBuffer.allocate(64);
        b.putInt(1).putInt(RpcMessage.CALL).putInt(2).putInt(100_003).putInt(3).putInt(0);
        b.putInt(RpcMessage.AUTH_SYS).putInt(5).put(new byte[] {1, 2, 3, 4, 5, 0, 0, 0});
        b.putInt(RpcMessage.AUTH_NONE).putInt(0);
        b.flip();
        assertEquals(24 + 8 + 8, RpcMessage.verifierOffset(b));
        assertEquals(24 + 8 + 8 + 8, RpcMessage.argumentsOffset(b));
    }

    @Test
    void theResultsOfASuccessfulReplyBeginAfterAcceptStat() {
        ByteBuffer reply = ByteBuffer.wrap(SUCCESS_REPLY);
        assertEquals(20, RpcMessage.acceptStatOffset(reply));
        assertEquals(24, RpcMessage.resultsOffset(reply));

        ByteBuffer garbage = ByteBuffer.allocate(24);
        RpcMessage.putAcceptedReplyHeader(garbage, 7, RpcMessage.GARBAGE_ARGS).flip();
        assertEquals(20, RpcMessage.acceptStatOffset(garbage));
        assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(garbage), "no results but for SUCCESS");

        ByteBuffer denied = ByteBuffer.allocate(20);
        RpcMessage.putAuthErrorReply(denied, 7, RpcMessage.AUTH_BADCRED).flip();
        assertTrue(RpcMessage.isReply(denied));
        assertEquals(RpcMessage.NONE, RpcMessage.acceptStatOffset(denied));
        assertEquals(RpcMessage.AUTH_ERROR, denied.getInt(RpcMessage.REPLY_BODY_OFFSET));
    }

    @Test
    void everyPrefixOfACallIsShortAndAnsweredWithNone() {
        for (int length = 0; length < NULL_AUTH_CALL.length; length++) {
            ByteBuffer b = ByteBuffer.wrap(NULL_AUTH_CALL, 0, length).slice();
            assertEquals(RpcMessage.NONE, RpcMessage.argumentsOffset(b), "length " + length);
            if (length < 8) {
                assertEquals(RpcMessage.NONE, RpcMessage.messageType(b), "length " + length);
            }
            if (length < 32) {
                assertEquals(RpcMessage.NONE, RpcMessage.verifierOffset(b), "length " + length);
            }
        }
    }

    @Test
    void everyPrefixOfAReplyIsShortAndAnsweredWithNone() {
        for (int length = 0; length < SUCCESS_REPLY.length; length++) {
            ByteBuffer b = ByteBuffer.wrap(SUCCESS_REPLY, 0, length).slice();
            assertEquals(RpcMessage.NONE, RpcMessage.acceptStatOffset(b), "length " + length);
            assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(b), "length " + length);
        }
    }

    @Test
    void claimedAuthLengthsBeyond400OrTheMessageAreNone() {
        byte[] call = NULL_AUTH_CALL.clone();
        ByteBuffer b = ByteBuffer.wrap(call);
        b.putInt(RpcMessage.CREDENTIAL_OFFSET + 4, 404);
        assertEquals(RpcMessage.NONE, RpcMessage.verifierOffset(b), "more than MAX_AUTH_BYTES");
        b.putInt(RpcMessage.CREDENTIAL_OFFSET + 4, -4);
        assertEquals(RpcMessage.NONE, RpcMessage.verifierOffset(b), "negative, i.e. above 2^31 unsigned");
        b.putInt(RpcMessage.CREDENTIAL_OFFSET + 4, 12);
        assertEquals(RpcMessage.NONE, RpcMessage.argumentsOffset(b), "the credential eats the verifier");
        b.putInt(RpcMessage.CREDENTIAL_OFFSET + 4, 0);
        b.putInt(36, 400);
        assertEquals(RpcMessage.NONE, RpcMessage.argumentsOffset(b), "the verifier runs past the message");

        byte[] reply = SUCCESS_REPLY.clone();
        ByteBuffer r = ByteBuffer.wrap(reply);
        r.putInt(16, 401);
        assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(r));
        r.putInt(16, 4);
        assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(r), "the verifier eats accept_stat");
    }

    @Test
    void aReplyIsNotReadAsACallNorTheReverse() {
        assertEquals(RpcMessage.NONE, RpcMessage.argumentsOffset(ByteBuffer.wrap(SUCCESS_REPLY)));
        assertEquals(RpcMessage.NONE, RpcMessage.resultsOffset(ByteBuffer.wrap(NULL_AUTH_CALL)));
        assertEquals("CALL", RpcMessage.toString(RpcMessage.CALL));
        assertEquals("REPLY", RpcMessage.toString(RpcMessage.REPLY));
        assertEquals("msg_type(9)", RpcMessage.toString(9));
    }
}
