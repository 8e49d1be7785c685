package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rpcrdma4j.codec.RpcMessage.AUTH_NONE;
import static org.rpcrdma4j.codec.RpcMessage.AUTH_SYS;
import static org.rpcrdma4j.codec.RpcMessage.RPCSEC_GSS;

import java.nio.ByteBuffer;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.server.RpcHeaderCheck.Fault;

/**
 * RpcHeaderCheckTest - the header walk on hand-built headers, field by field: each length at its
 * limit passes, one beyond it (or beyond the message) is named; the walk starts wherever the
 * message starts in its buffer and never moves the buffer.
 */
class RpcHeaderCheckTest {
    private static final int HUGE = 0x7fff_fff0;

    private static Fault call(byte[] message) {
        // Behind 12 bytes of something else, to prove the walk honours its start.
        byte[] framed = new byte[12 + message.length];
        System.arraycopy(message, 0, framed, 12, message.length);
        Buffer buffer = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, framed);
        buffer.position(5);
        Fault fault = RpcHeaderCheck.checkCall(buffer, 12);
        assertEquals(5, buffer.position(), "the walk leaves the position alone");
        return fault;
    }

    private static Fault reply(byte[] message) {
        return RpcHeaderCheck.checkReply(ByteBuffer.wrap(message));
    }

    private static RpcHeaders call() {
        return RpcHeaders.call(1, 100003, 4, 1);
    }

    @Test
    void soundCallsPass() {
        assertEquals(Fault.NONE, call(call().none().none().bytes()));
        assertEquals(Fault.NONE, call(call().auth(AUTH_SYS, RpcHeaders.authSys("client", 1, 2, 3)).none().bytes()));
        assertEquals(Fault.NONE, call(call().auth(AUTH_NONE, new byte[400]).auth(AUTH_NONE, new byte[400]).bytes()),
                "400 bytes, MAX_AUTH_BYTES, each");
        assertEquals(Fault.NONE, call(call().auth(RPCSEC_GSS, RpcHeaders.gss(3, new byte[3])).none().bytes()));
    }

    @Test
    void aCallTooShortToNameItsProcedureIsTruncated() {
        byte[] head = call().bytes();
        byte[] cut = new byte[head.length - 1];
        System.arraycopy(head, 0, cut, 0, cut.length);
        assertEquals(Fault.TRUNCATED, call(cut));
    }

    @Test
    void aCallOfAnotherRpcVersionIsLeftToOncRpc4jsRpcMismatch() {
        byte[] message = RpcHeaders.call(1, 100003, 4, 1).auth(AUTH_NONE, HUGE, new byte[0]).bytes();
        message[11] = 3;
        assertEquals(Fault.NONE, call(message), "oncrpc4j reads no credential of an RPC version 3 call");
    }

    @Test
    void credentialLengths() {
        assertEquals(Fault.CREDENTIAL_TRUNCATED, call(call().words(AUTH_NONE).bytes()), "no length word");
        assertEquals(Fault.CREDENTIAL_TOO_LONG, call(call().auth(AUTH_NONE, 401, new byte[404]).none().bytes()));
        assertEquals(Fault.CREDENTIAL_TOO_LONG, call(call().auth(AUTH_NONE, HUGE, new byte[0]).bytes()));
        assertEquals(Fault.CREDENTIAL_TOO_LONG, call(call().auth(AUTH_NONE, -4, new byte[0]).bytes()), "unsigned");
        assertEquals(Fault.CREDENTIAL_TRUNCATED, call(call().auth(AUTH_NONE, 8, new byte[4]).bytes()));
        assertEquals(Fault.CREDENTIAL_TRUNCATED, call(call().auth(AUTH_NONE, 5, new byte[5]).bytes()),
                "the body's XDR padding is part of it");
    }

    @Test
    void authSysFields() {
        assertEquals(Fault.MACHINE_NAME_TOO_LONG,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 256, 0)).none().bytes()));
        assertEquals(Fault.MACHINE_NAME_TOO_LONG,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", HUGE, 0)).none().bytes()));
        assertEquals(Fault.NONE, call(call().auth(AUTH_SYS, RpcHeaders.authSys("a".repeat(255))).none().bytes()),
                "255 bytes of machine name");
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 200, 0)).none().bytes()), "a name beyond the body");
        assertEquals(Fault.TOO_MANY_GIDS,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 1, 17, new int[17])).none().bytes()));
        assertEquals(Fault.TOO_MANY_GIDS,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 1, 1 << 30)).none().bytes()));
        assertEquals(Fault.NONE, call(call().auth(AUTH_SYS, RpcHeaders.authSys("x", new int[16])).none().bytes()),
                "16 gids");
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 1, 3, 7)).none().bytes()), "gids beyond the body");
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH,
                call(call().auth(AUTH_SYS, RpcHeaders.authSysClaiming("x", 1, 0, 7)).none().bytes()),
                "a body longer than its fields: oncrpc4j would read the verifier inside it");
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH, call(call().auth(AUTH_SYS, new byte[16]).none().bytes()),
                "too short for its fixed fields");
    }

    @Test
    void gssHandle() {
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH,
                call(call().auth(RPCSEC_GSS, RpcHeaders.gss(HUGE, new byte[4])).none().bytes()));
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH,
                call(call().auth(RPCSEC_GSS, RpcHeaders.gss(8, new byte[4])).none().bytes()));
        assertEquals(Fault.CREDENTIAL_BODY_MISMATCH, call(call().auth(RPCSEC_GSS, new byte[12]).none().bytes()));
    }

    @Test
    void verifierLengths() {
        assertEquals(Fault.VERIFIER_MISSING, call(call().none().bytes()));
        assertEquals(Fault.VERIFIER_MISSING, call(call().none().words(AUTH_NONE).bytes()));
        assertEquals(Fault.VERIFIER_TOO_LONG, call(call().none().auth(AUTH_NONE, HUGE, new byte[0]).bytes()));
        assertEquals(Fault.VERIFIER_TRUNCATED, call(call().none().auth(AUTH_NONE, 12, new byte[8]).bytes()));
    }

    @Test
    void replies() {
        assertEquals(Fault.NONE, reply(RpcHeaders.reply(1, 0).none().words(0).bytes()), "accepted, SUCCESS");
        assertEquals(Fault.NONE, reply(RpcHeaders.reply(1, 0).none().words(2, 1, 4).bytes()), "PROG_MISMATCH");
        assertEquals(Fault.TRUNCATED, reply(RpcHeaders.reply(1, 0).none().words(2, 1).bytes()));
        assertEquals(Fault.TRUNCATED, reply(RpcHeaders.reply(1, 0).none().bytes()), "no accept_stat");
        assertEquals(Fault.VERIFIER_TOO_LONG, reply(RpcHeaders.reply(1, 0).auth(AUTH_NONE, HUGE, new byte[0]).words(0).bytes()));
        assertEquals(Fault.VERIFIER_TRUNCATED, reply(RpcHeaders.reply(1, 0).auth(AUTH_NONE, 400, new byte[8]).bytes()));
        assertEquals(Fault.NONE, reply(RpcHeaders.reply(1, 1).words(0, 2, 2).bytes()), "RPC_MISMATCH");
        assertEquals(Fault.NONE, reply(RpcHeaders.reply(1, 1).words(1, 1).bytes()), "AUTH_ERROR");
        assertEquals(Fault.TRUNCATED, reply(RpcHeaders.reply(1, 1).words(1).bytes()));
        assertEquals(Fault.UNKNOWN_REJECT_STATUS, reply(RpcHeaders.reply(1, 1).words(9, 0).bytes()));
        assertEquals(Fault.UNKNOWN_REPLY_STATUS, reply(RpcHeaders.reply(1, 2).words(0, 0).bytes()));
        assertEquals(Fault.TRUNCATED, reply(new byte[8]));
        assertEquals(Fault.WRONG_MESSAGE_TYPE, reply(call().none().none().bytes()));
    }
}
