package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javax.security.auth.x500.X500Principal;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.server.RpcCallDispatcher.Outcome;

/**
 * AuthSysCredentials through the dispatcher: a call whose AUTH_SYS credential is byte for byte one
 * seen before gets the credential decoded then, its arguments read from the right place; any other
 * credential (or verifier) is decoded by oncrpc4j as before; a kept credential cannot be changed;
 * a flood of distinct credentials keeps at most the table's slots, every call with its own identity.
 */
class AuthSysCredentialsTest {

    private static final Executor INLINE = Runnable::run;
    private static final int PROGRAM = 0x2000_0102;
    private static final int VERSION = 1;

    /** Records each call's credential and echoes its opaque argument. */
    private final List<RpcAuth> credentials = new ArrayList<>();
    private final RpcDispatchable recorder = (RpcCall call) -> {
        credentials.add(call.getCredential());
        XdrOpaque argument = new XdrOpaque();
        call.retrieveCall(argument);
        call.reply(argument);
    };
    private final ProgramTable programs = new ProgramTable();
    private final CapturingTransport transport = new CapturingTransport();
    private RpcCallDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        programs.register(new OncRpcProgram(PROGRAM, VERSION), recorder);
        dispatcher = new RpcCallDispatcher(programs, INLINE);
    }

    /** An ECHO call of {@code word} (as a 4-byte opaque) with an AUTH_SYS credential and the given verifier. */
    private static byte[] call(int xid, int uid, int verifierFlavor, byte[] verifier, int... gids) {
        byte[] name = RpcHeaders.padded("client.example".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer body = ByteBuffer.allocate(20 + name.length + 4 * gids.length);
        body.putInt(0).putInt("client.example".length()).put(name).putInt(uid).putInt(100).putInt(gids.length);
        for (int g : gids) {
            body.putInt(g);
        }
        return RpcHeaders.call(xid, PROGRAM, VERSION, 1).auth(RpcMessage.AUTH_SYS, body.array())
                .auth(verifierFlavor, verifier).words(4, xid).bytes();
    }

    private static byte[] call(int xid, int uid, int... gids) {
        return call(xid, uid, RpcMessage.AUTH_NONE, new byte[0], gids);
    }

    private Outcome receive(byte[] message) {
        return dispatcher.receive(new Xdr(message), transport);
    }

    /** @return the echoed argument word of the reply to {@code index}: the call's arguments were read where they are */
    private int echoedWord(int index) {
        ByteBuffer reply = transport.sent.get(index).slice();
        int[] head = RpcHeaders.replyHead(reply);
        assertEquals(RpcMessage.MSG_ACCEPTED, head[1]);
        int results = RpcMessage.acceptStatOffset(reply) + Integer.BYTES;
        assertEquals(4, reply.getInt(results), "opaque length");
        return reply.getInt(results + Integer.BYTES);
    }

    @Test
    void callsWithOneCredentialShareItsDecodeAndReadTheirOwnArguments() {
        for (int xid = 1; xid <= 3; xid++) {
            assertEquals(Outcome.DISPATCHED, receive(call(xid, 1000, 10, 20)));
            assertEquals(xid, echoedWord(xid - 1));
        }
        assertSame(credentials.get(0), credentials.get(1));
        assertSame(credentials.get(0), credentials.get(2));
        RpcAuthTypeUnix unix = (RpcAuthTypeUnix) credentials.get(2);
        assertEquals(1000, unix.uid());
        assertEquals(100, unix.gid());
        assertArrayEquals(new int[] {10, 20}, unix.gids());
        assertEquals(2, dispatcher.callsWithKeptCredential());
        assertEquals(1, dispatcher.credentialsKept());
    }

    @Test
    void anotherUserIsDecodedForItself() {
        receive(call(1, 1000));
        receive(call(2, 1001));
        receive(call(3, 1000, 7));
        assertEquals(1000, ((RpcAuthTypeUnix) credentials.get(0)).uid());
        assertEquals(1001, ((RpcAuthTypeUnix) credentials.get(1)).uid());
        assertArrayEquals(new int[] {7}, ((RpcAuthTypeUnix) credentials.get(2)).gids());
        assertNotSame(credentials.get(0), credentials.get(2));
        assertEquals(0, dispatcher.callsWithKeptCredential());
    }

    @Test
    void aKeptCredentialsSubjectCannotBeChanged() {
        receive(call(1, 1000));
        receive(call(2, 1000));
        RpcAuthTypeUnix shared = (RpcAuthTypeUnix) credentials.get(1);
        assertThrows(IllegalStateException.class,
                () -> shared.getSubject().getPrincipals().add(new X500Principal("CN=root")));
        assertTrue(shared.getSubject().getPrincipals().stream().anyMatch(p -> p.getName().equals("1000")),
                shared.getSubject().toString());
    }

    @Test
    void aCallWithAnotherVerifierIsDecodedByOncrpc4jEveryTime() {
        byte[] verifier = new byte[] {1, 2, 3, 4};
        receive(call(1, 1000, RpcMessage.AUTH_NONE, verifier));
        receive(call(2, 1000, RpcMessage.AUTH_NONE, verifier));
        assertEquals(1, echoedWord(0));
        assertEquals(2, echoedWord(1));
        assertNotSame(credentials.get(0), credentials.get(1));
        assertEquals(0, dispatcher.credentialsKept());
        assertEquals(0, dispatcher.callsWithKeptCredential());
    }

    @Test
    void authNoneCallsAreNotKept() {
        for (int xid = 1; xid <= 2; xid++) {
            receive(RpcHeaders.call(xid, PROGRAM, VERSION, 1).none().none().words(4, xid).bytes());
            assertEquals(xid, echoedWord(xid - 1));
        }
        assertEquals(0, dispatcher.credentialsKept());
    }

    @Test
    void aFloodOfDistinctCredentialsKeepsAtMostTheSlotsEachCallItsOwnIdentity() {
        int calls = 20 * AuthSysCredentials.SLOTS;
        for (int i = 0; i < calls; i++) {
            receive(call(i, 5000 + i % (4 * AuthSysCredentials.SLOTS)));
        }
        for (int i = 0; i < calls; i++) {
            assertEquals(5000 + i % (4 * AuthSysCredentials.SLOTS), ((RpcAuthTypeUnix) credentials.get(i)).uid(),
                    "call " + i);
            assertEquals(i, echoedWord(i));
        }
        assertTrue(dispatcher.credentialsKeptNow() <= AuthSysCredentials.SLOTS, "kept " + dispatcher.credentialsKeptNow());
        assertEquals(calls, dispatcher.credentialsKept() + dispatcher.callsWithKeptCredential());
    }
}
