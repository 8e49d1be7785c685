package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.server.RpcCallDispatcher.Outcome;

/**
 * The dispatcher gives each kind of call the answer oncrpc4j's own dispatcher gives, byte
 * for byte in the reply header, with program code run on the executor (here: inline).
 */
class RpcCallDispatcherTest {

    private static final Executor INLINE = Runnable::run;

    private final ProgramTable programs = new ProgramTable();
    private final EchoProgram echo = new EchoProgram();
    private final CapturingTransport transport = new CapturingTransport();
    private RpcCallDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        programs.register(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), echo);
        dispatcher = new RpcCallDispatcher(programs, INLINE);
    }

    private Outcome receive(byte[] message) {
        return dispatcher.receive(new Xdr(message), transport);
    }

    private int[] onlyReplyHead() {
        assertEquals(1, transport.sent.size(), "exactly one reply sent");
        return RpcHeaders.replyHead(transport.sent.get(0));
    }

    @Test
    void echoCallIsAnsweredWithItsArgument() {
        // ECHO of the 5-byte opaque "hello": length word, then the bytes padded to 8.
        byte[] call = RpcHeaders.nullAuthCall(41, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO,
                5, 0x68656c6c, 0x6f000000);
        assertEquals(Outcome.DISPATCHED, receive(call));
        ByteBuffer reply = transport.sent.get(0);
        assertArrayEquals(new int[] {41, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SUCCESS}, onlyReplyHead());
        reply.position(24);
        assertEquals(5, reply.getInt());
        byte[] body = new byte[5];
        reply.get(body);
        assertEquals("hello", new String(body, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, dispatcher.dispatchedCalls());
    }

    @Test
    void unknownProgramIsProgUnavail() {
        assertEquals(Outcome.PROGRAM_UNAVAILABLE, receive(RpcHeaders.nullAuthCall(7, 2, 100099, 1, 0)));
        assertArrayEquals(new int[] {7, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.PROG_UNAVAIL}, onlyReplyHead());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void unknownVersionIsProgUnavailAsInOncRpc4j() {
        assertEquals(Outcome.PROGRAM_UNAVAILABLE, receive(RpcHeaders.nullAuthCall(8, 2, EchoProgram.PROGRAM, 9, 0)));
        assertArrayEquals(new int[] {8, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.PROG_UNAVAIL}, onlyReplyHead());
    }

    @Test
    void wrongRpcVersionIsDeniedWithRpcMismatch() {
        assertEquals(Outcome.REJECTED, receive(RpcHeaders.nullAuthCall(9, 3, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)));
        assertArrayEquals(new int[] {9, RpcMessage.MSG_DENIED, RpcRejectStatus.RPC_MISMATCH}, onlyReplyHead());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void programRuntimeFailureIsSystemErrWithoutStackTrace() {
        receive(RpcHeaders.nullAuthCall(10, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_THROW_RUNTIME));
        assertArrayEquals(new int[] {10, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SYSTEM}, onlyReplyHead());
        assertEquals(24, transport.sent.get(0).remaining(), "the reply carries nothing after the status");
        assertEquals(1, dispatcher.failedCalls());
    }

    @Test
    void undecodableArgumentsAreGarbageArgs() {
        // ECHO claiming a 1000-byte opaque, with none of its bytes present.
        receive(RpcHeaders.nullAuthCall(11, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, 1000));
        assertArrayEquals(new int[] {11, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.GARBAGE_ARGS}, onlyReplyHead());
    }

    @Test
    void ioFailureIsGarbageArgsAsInOncRpc4j() {
        receive(RpcHeaders.nullAuthCall(12, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_THROW_IO));
        assertArrayEquals(new int[] {12, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.GARBAGE_ARGS}, onlyReplyHead());
    }

    @Test
    void unknownProcedureIsProcUnavail() {
        receive(RpcHeaders.nullAuthCall(13, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, 77));
        assertArrayEquals(new int[] {13, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.PROC_UNAVAIL}, onlyReplyHead());
    }

    @Test
    void messageShorterThanAnRpcHeaderIsDroppedUnanswered() {
        assertEquals(Outcome.GARBAGE, receive(new byte[] {0, 0, 0, 1, 0, 0}));
        assertTrue(transport.sent.isEmpty());
    }

    @Test
    void unknownMessageTypeIsDroppedUnanswered() {
        byte[] message = RpcHeaders.nullAuthCall(14, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, 0);
        message[7] = 5; // msg_type 5: neither CALL nor REPLY
        assertEquals(Outcome.GARBAGE, receive(message));
        assertTrue(transport.sent.isEmpty());
    }

    @Test
    void replyWithoutPendingCallIsDropped() {
        ByteBuffer reply = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        RpcMessage.putAcceptedReplyHeader(reply, 15, RpcMessage.SUCCESS);
        assertEquals(Outcome.REPLY_UNMATCHED, receive(reply.array()));
        assertTrue(transport.sent.isEmpty());
    }

    @Test
    void refusedByTheWorkerPoolIsSystemErr() {
        RpcCallDispatcher saturated = new RpcCallDispatcher(programs, task -> {
            throw new RejectedExecutionException("saturated on purpose");
        });
        assertEquals(Outcome.OVERLOADED, saturated.receive(new Xdr(
                RpcHeaders.nullAuthCall(16, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)), transport));
        assertArrayEquals(new int[] {16, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SYSTEM}, onlyReplyHead());
        assertEquals(0, echo.calls.get());
    }

    /** The Errors a program can throw that must cost only its call (issue #31, D3). */
    private static List<Error> programErrors() {
        return List.of(new StackOverflowError("deep recursion on purpose"), new AssertionError("assertion on purpose"),
                new OutOfMemoryError("heap exhausted on purpose"), new NoClassDefFoundError("org/example/Missing"));
    }

    @Test
    void aProgramThrowingAnErrorIsAnsweredSystemErrAndCountedWhateverTheError() {
        int xid = 20;
        for (Error error : programErrors()) {
            transport.sent.clear();
            echo.error = error;
            Outcome outcome = receive(RpcHeaders.nullAuthCall(xid, 2, EchoProgram.PROGRAM, EchoProgram.VERSION,
                    EchoProgram.PROC_THROW_ERROR));
            assertEquals(Outcome.DISPATCHED, outcome, error.toString());
            assertArrayEquals(new int[] {xid, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SYSTEM}, onlyReplyHead(),
                    error + " is answered SYSTEM_ERR");
            assertEquals(24, transport.sent.get(0).remaining(), "the reply carries nothing after the status");
            xid++;
        }
        assertEquals(4, dispatcher.failedCalls());
        assertEquals(4, dispatcher.programErrorCalls());
    }

    @Test
    void anErrorOnTheServingThreadIsAnsweredAndDoesNotEscape() {
        for (Error error : programErrors()) {
            transport.sent.clear();
            echo.error = error;
            Outcome outcome = dispatcher.serve(new Xdr(RpcHeaders.nullAuthCall(30, 2, EchoProgram.PROGRAM, EchoProgram.VERSION,
                    EchoProgram.PROC_THROW_ERROR)), transport);
            assertEquals(Outcome.DISPATCHED, outcome, error.toString());
            assertArrayEquals(new int[] {30, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SYSTEM}, onlyReplyHead());
        }
        assertEquals(4, dispatcher.programErrorCalls());
    }

    @Test
    void anErrorWhoseAnswerCannotBeSentIsReportedUnansweredForTheTransportToDrop() {
        CapturingTransport broken = new CapturingTransport() {
            @Override
            public <A> void send(Xdr xdr, A attachment, java.nio.channels.CompletionHandler<Integer, ? super A> handler) {
                throw new OutOfMemoryError("no memory for the reply either");
            }
        };
        echo.error = new OutOfMemoryError("heap exhausted on purpose");
        Outcome outcome = dispatcher.serve(new Xdr(RpcHeaders.nullAuthCall(31, 2, EchoProgram.PROGRAM, EchoProgram.VERSION,
                EchoProgram.PROC_THROW_ERROR)), broken);
        assertEquals(Outcome.FAILED_UNANSWERED, outcome, "the transport must release the call itself");
        assertEquals(1, dispatcher.programErrorCalls());
    }

    @Test
    void anErrorOnAWorkerCostsOnlyItsCallNotTheWorkerThread() throws Exception {
        try (HostServer host = new HostServer(1)) {
            host.addProgram(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), echo);
            RpcCallDispatcher workers = host.dispatcher();
            int xid = 40;
            Thread worker = null;
            for (Error error : programErrors()) {
                transport.sent.clear();
                echo.error = error;
                assertEquals(Outcome.DISPATCHED, workers.receive(new Xdr(RpcHeaders.nullAuthCall(xid, 2, EchoProgram.PROGRAM,
                        EchoProgram.VERSION, EchoProgram.PROC_THROW_ERROR)), transport));
                awaitOneReply();
                assertArrayEquals(new int[] {xid, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SYSTEM}, onlyReplyHead(),
                        error + " on a worker is answered SYSTEM_ERR");
                if (worker == null) {
                    worker = echo.lastThread;
                }
                // The next call runs on the same (only) worker: the Error did not end that thread.
                transport.sent.clear();
                assertEquals(Outcome.DISPATCHED, workers.receive(new Xdr(RpcHeaders.nullAuthCall(xid + 100, 2,
                        EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)), transport));
                awaitOneReply();
                assertArrayEquals(new int[] {xid + 100, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SUCCESS}, onlyReplyHead());
                assertSame(worker, echo.lastThread, "after " + error + " the same worker thread serves the next call");
                xid++;
            }
            assertEquals(4, workers.programErrorCalls());
        }
    }

    private void awaitOneReply() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (transport.sent.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
    }

    /** The head of a denied reply: {xid, MSG_DENIED, AUTH_ERROR, auth_stat}. */
    private int[] onlyDeniedHead() {
        assertEquals(1, transport.sent.size(), "exactly one reply sent");
        ByteBuffer b = transport.sent.get(0).duplicate();
        int xid = b.getInt();
        assertEquals(RpcMessage.REPLY, b.getInt());
        return new int[] {xid, b.getInt(), b.getInt(), b.getInt()};
    }

    private void assertRejectedUnread(int xid, int authStat, byte[] call) {
        assertEquals(Outcome.REJECTED, receive(call));
        assertArrayEquals(new int[] {xid, RpcMessage.MSG_DENIED, RpcRejectStatus.AUTH_ERROR, authStat}, onlyDeniedHead());
        assertEquals(0, echo.calls.get(), "the program never runs");
        assertEquals(1, dispatcher.malformedCalls());
    }

    // Issue #31, D1 (forward): before RpcHeaderCheck, each of these made oncrpc4j allocate the
    // length the client claimed: OutOfMemoryError ("Requested array size exceeds VM limit")
    // thrown through receive().

    @Test
    void aCredentialClaiming2GiBIsRejectedAuthBadcredWithoutAllocatingIt() {
        assertRejectedUnread(20, RpcAuthStat.AUTH_BADCRED, RpcHeaders.call(20, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)
                .auth(RpcMessage.AUTH_NONE, 0x7fff_ffff, new byte[0]).bytes());
    }

    @Test
    void anAuthSysMachineNameClaiming2GiBIsRejectedAuthBadcred() {
        assertRejectedUnread(21, RpcAuthStat.AUTH_BADCRED, RpcHeaders.call(21, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)
                .auth(RpcMessage.AUTH_SYS, RpcHeaders.authSysClaiming("x", 0x7fff_ffff, 0)).none().bytes());
    }

    @Test
    void anAuthSysCredentialClaimingAGigaGidsIsRejectedAuthBadcred() {
        assertRejectedUnread(22, RpcAuthStat.AUTH_BADCRED, RpcHeaders.call(22, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)
                .auth(RpcMessage.AUTH_SYS, RpcHeaders.authSysClaiming("x", 1, 0x4000_0000)).none().bytes());
    }

    @Test
    void anRpcsecGssHandleClaiming2GiBIsRejectedAuthBadcred() {
        assertRejectedUnread(23, RpcAuthStat.AUTH_BADCRED, RpcHeaders.call(23, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)
                .auth(RpcMessage.RPCSEC_GSS, RpcHeaders.gss(0x7fff_ffff, new byte[8])).none().bytes());
    }

    @Test
    void aVerifierClaiming2GiBIsRejectedAuthBadverf() {
        assertRejectedUnread(24, RpcAuthStat.AUTH_BADVERF, RpcHeaders.call(24, EchoProgram.PROGRAM, EchoProgram.VERSION, 0)
                .none().auth(RpcMessage.AUTH_NONE, 0x7fff_ffff, new byte[0]).bytes());
    }

    @Test
    void aSoundAuthSysCallIsStillServed() {
        byte[] call = RpcHeaders.call(25, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO)
                .auth(RpcMessage.AUTH_SYS, RpcHeaders.authSys("client.example", 10, 20, 30)).none().words(0).bytes();
        assertEquals(Outcome.DISPATCHED, receive(call));
        assertArrayEquals(new int[] {25, RpcMessage.MSG_ACCEPTED, RpcAccepsStatus.SUCCESS}, onlyReplyHead());
        assertEquals(0, dispatcher.malformedCalls());
    }

    @Test
    void aReplyWhoseVerifierClaims2GiBFailsItsCallerAtOnceNamingTheFault() throws Exception {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        transport.getReplyQueue().registerKey(26, null, new CompletionHandler<RpcReply, RpcTransport>() {
            @Override
            public void completed(RpcReply reply, RpcTransport t) {
                failure.complete(null);
            }

            @Override
            public void failed(Throwable e, RpcTransport t) {
                failure.complete(e);
            }
        });
        byte[] reply = RpcHeaders.reply(26, RpcMessage.MSG_ACCEPTED).auth(RpcMessage.AUTH_NONE, 0x7fff_ffff, new byte[0])
                .words(0).bytes();
        assertEquals(Outcome.REPLY_DELIVERED, receive(reply));
        Throwable e = failure.getNow(null);
        MalformedRpcHeaderException malformed = assertInstanceOf(MalformedRpcHeaderException.class, e);
        assertEquals(RpcHeaderCheck.Fault.VERIFIER_TOO_LONG, malformed.fault());
        assertTrue(e.getMessage().contains("400 bytes"), e.getMessage());
        assertEquals(1, dispatcher.malformedCalls());
    }
}
