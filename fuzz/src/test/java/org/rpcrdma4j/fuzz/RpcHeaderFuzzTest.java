package org.rpcrdma4j.fuzz;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.CapturingTransport;
import org.rpcrdma4j.server.ProgramTable;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.server.RpcHeaderCheck;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * RpcHeaderFuzzTest - coverage-guided fuzzing of forward calls' RPC headers through
 * {@link RpcHeaderCheck} and oncrpc4j's decoding, as {@link RpcCallDispatcher} runs them: the
 * fuzzer builds the call header field by field (message type, RPC version, program, credential
 * and verifier flavors, their lengths true or claimed, AUTH_SYS and RPCSEC_GSS bodies with
 * machine names, gid counts and handles of its choosing), or sends arbitrary bytes.
 *
 * <p>Invariants, for every input: nothing but a {@link RuntimeException} (which the transport
 * maps to a dropped call) escapes the dispatcher; no length oncrpc4j decodes from a header the
 * check passed reaches beyond the message ({@link LengthCheckingXdr}); a call the check refused
 * never reaches its program and gets at most one reply, a MSG_DENIED AUTH_ERROR with the
 * fault's auth_stat; and the malformed-call count moves exactly when the check refused.
 *
 * <p>Without {@code JAZZER_FUZZ} this replays {@code RpcHeaderFuzzTestInputs/forwardCall/};
 * {@code ./fuzz-jazzer} fuzzes.
 */
class RpcHeaderFuzzTest {
    private static final int PROGRAM = 100003;
    private static final int VERSION = 4;
    private static final int[] FLAVORS = {0, 1, 6, 7, 2, 3, 390003};
    /** One for every input: oncrpc4j's ReplyQueue is not worth making per input. */
    private static final CapturingTransport TRANSPORT = new CapturingTransport();
    static {
        // The dispatcher logs some refusals per call at INFO (RPC_MISMATCH, replies to nothing):
        // hundreds of MB a minute at the fuzzer's rate. Its rate-limited WARN lines stay.
        System.setProperty("org.slf4j.simpleLogger.log.org.rpcrdma4j.server.RpcCallDispatcher", "warn");
    }

    private static final VoidProgram PROGRAM_CODE = new VoidProgram();
    /** One for every input, so its rate-limited log of malformed calls stays one line per 10 s. */
    private static final RpcCallDispatcher DISPATCHER = dispatcher();

    private static RpcCallDispatcher dispatcher() {
        ProgramTable programs = new ProgramTable();
        programs.register(new OncRpcProgram(PROGRAM, VERSION), PROGRAM_CODE);
        return new RpcCallDispatcher(programs, Runnable::run);
    }

    @FuzzTest(maxDuration = "2h")
    void forwardCall(FuzzedDataProvider data) {
        byte[] message = data.consumeBoolean() ? data.consumeRemainingAsBytes() : header(data);
        RpcCallDispatcher dispatcher = DISPATCHER;
        long malformedBefore = dispatcher.malformedCalls();
        VoidProgram program = PROGRAM_CODE;
        program.calls = 0;
        CapturingTransport transport = TRANSPORT;
        transport.sent.clear();
        RpcHeaderCheck.Fault fault = RpcMessage.isCall(ByteBuffer.wrap(message))
                ? RpcHeaderCheck.checkCall(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, message), 0)
                : null;
        RpcCallDispatcher.Outcome outcome;
        try {
            outcome = dispatcher.receive(new LengthCheckingXdr(message), transport);
        } catch (RuntimeException e) {
            // What CallBridge.serve does: the call is dropped (e.g. AUTH_TLS: RDMA has no startTLS).
            outcome = RpcCallDispatcher.Outcome.GARBAGE;
        }
        boolean refused = fault != null && fault != RpcHeaderCheck.Fault.NONE;
        long malformed = dispatcher.malformedCalls() - malformedBefore;
        require(malformed == (refused ? 1 : 0), "malformed count " + malformed + " for fault " + fault);
        if (refused) {
            require(program.calls == 0, "a call the check refused reached its program: " + fault);
            require(outcome == RpcCallDispatcher.Outcome.REJECTED || outcome == RpcCallDispatcher.Outcome.GARBAGE,
                    "outcome " + outcome + " for fault " + fault);
            require(transport.sent.size() == (outcome == RpcCallDispatcher.Outcome.REJECTED ? 1 : 0),
                    transport.sent.size() + " replies for " + outcome);
            if (outcome == RpcCallDispatcher.Outcome.REJECTED) {
                ByteBuffer r = transport.sent.get(0);
                require(RpcMessage.isReply(r) && r.getInt(RpcMessage.REPLY_STAT_OFFSET) == RpcMessage.MSG_DENIED
                        && r.getInt(RpcMessage.REPLY_BODY_OFFSET) == RpcMessage.AUTH_ERROR
                        && r.getInt(RpcMessage.REPLY_BODY_OFFSET + 4) == fault.authStat(),
                        "a refused call is answered MSG_DENIED AUTH_ERROR " + fault.authStat());
            }
        }
        require(transport.sent.size() <= 1, "one reply at most: " + transport.sent.size());
    }

    /** A call header built field by field, mostly around valid values. */
    private static byte[] header(FuzzedDataProvider data) {
        ByteBuffer b = ByteBuffer.allocate(2048);
        b.putInt(data.consumeInt()).putInt(data.consumeInt(0, 8) == 0 ? data.consumeInt() : RpcMessage.CALL);
        b.putInt(data.consumeInt(0, 8) == 0 ? data.consumeInt() : RpcMessage.RPC_VERSION);
        b.putInt(data.consumeBoolean() ? PROGRAM : data.consumeInt()).putInt(data.consumeBoolean() ? VERSION : data.consumeInt());
        b.putInt(data.consumeInt(0, 3));
        auth(b, data, true);
        if (data.consumeInt(0, 8) > 0) {
            auth(b, data, false);
        }
        byte[] rest = data.consumeBytes(Math.min(b.remaining(), data.consumeInt(0, 64)));
        b.put(rest);
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static void auth(ByteBuffer b, FuzzedDataProvider data, boolean credential) {
        int flavor = data.consumeInt(0, 9) < 8 ? data.pickValue(FLAVORS) : data.consumeInt();
        b.putInt(flavor);
        byte[] body = credential && flavor == 1 ? authSys(data) : credential && flavor == 6 ? gss(data)
                : data.consumeBytes(data.consumeInt(0, 420));
        int claimed = switch (data.consumeInt(0, 7)) {
            case 0 -> data.consumeInt();
            case 1 -> body.length + data.consumeInt(-8, 8);
            default -> body.length;
        };
        b.putInt(claimed);
        int padded = Math.min(b.remaining(), (int) Xdr.roundUp(body.length));
        b.put(body, 0, Math.min(body.length, padded));
        b.position(b.position() + padded - Math.min(body.length, padded));
    }

    private static byte[] authSys(FuzzedDataProvider data) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putInt(data.consumeInt());
        byte[] name = data.consumeBytes(data.consumeInt(0, 260));
        b.putInt(data.consumeInt(0, 5) == 0 ? data.consumeInt() : name.length);
        b.put(name).position((int) Xdr.roundUp(b.position()));
        b.putInt(data.consumeInt()).putInt(data.consumeInt());
        int gids = data.consumeInt(0, 18);
        b.putInt(data.consumeInt(0, 5) == 0 ? data.consumeInt() : gids);
        for (int i = 0; i < gids && b.remaining() >= 4; i++) {
            b.putInt(data.consumeInt());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static byte[] gss(FuzzedDataProvider data) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putInt(data.consumeInt(0, 2)).putInt(data.consumeInt(0, 4)).putInt(data.consumeInt()).putInt(data.consumeInt(0, 4));
        byte[] handle = data.consumeBytes(data.consumeInt(0, 400));
        b.putInt(data.consumeInt(0, 5) == 0 ? data.consumeInt() : handle.length);
        b.put(handle).position((int) Xdr.roundUp(b.position()));
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /** A program whose procedures take and return nothing: only the header is decoded. */
    private static final class VoidProgram implements RpcDispatchable {
        int calls;

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws IOException {
            calls++;
            call.reply(XdrVoid.XDR_VOID);
        }
    }
}
