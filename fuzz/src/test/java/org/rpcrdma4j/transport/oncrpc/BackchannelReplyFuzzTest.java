package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.fuzz.LengthCheckingXdr;
import org.rpcrdma4j.server.MalformedRpcHeaderException;
import org.rpcrdma4j.server.RpcHeaderCheck;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.TransportStatistics;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * BackchannelReplyFuzzTest - coverage-guided fuzzing of the client's replies to backward calls
 * through {@link BackchannelReplyQueue}, as the back-channel thread runs them: the fuzzer registers
 * backward calls, then delivers replies (built field by field: reply and accept/reject status,
 * verifier flavor and claimed length, trailing results; or arbitrary bytes) to them or to xids
 * nobody waits for, refuses some (a reply that came with chunks) and may close the connection.
 *
 * <p>Invariants, for every input: nothing escapes {@code deliver}, {@code refuse} or
 * {@code failAll}; every registered call's handler hears exactly once (completed or failed), and
 * none is left waiting once the connection closed; a reply completes its call only if
 * {@link RpcHeaderCheck} passed its header, and then no length oncrpc4j decodes from it reaches
 * beyond the message ({@link LengthCheckingXdr}); a reply the check refused fails its call with a
 * {@link MalformedRpcHeaderException} naming that very fault.
 *
 * <p>Without {@code JAZZER_FUZZ} this replays {@code BackchannelReplyFuzzTestInputs/backwardReply/};
 * {@code ./fuzz-jazzer} fuzzes.
 */
class BackchannelReplyFuzzTest {
    private static final int MAX_OPS = 16;
    /** Timeouts are never scheduled (calls register without one), so one idle scheduler serves every input. */
    private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fuzz-backchannel");
        t.setDaemon(true);
        return t;
    });
    private static final FakeConnection CONNECTION = new FakeConnection();

    @FuzzTest(maxDuration = "2h")
    void backwardReply(FuzzedDataProvider data) throws Exception {
        BackchannelReplyQueue queue = BackchannelTransport.create(CONNECTION, SCHEDULER).replies();
        List<Waiter> waiters = new ArrayList<>();
        boolean closed = false;
        for (int op = 0; op < MAX_OPS && data.remainingBytes() > 0; op++) {
            switch (data.consumeInt(0, 7)) {
                case 0, 1 -> {
                    Waiter w = new Waiter(0x1000 + waiters.size());
                    try {
                        queue.registerKey(w.xid, null, w);
                        waiters.add(w);
                    } catch (EOFException e) {
                        require(closed, "registration refused on an open connection: " + e);
                    }
                }
                case 2 -> {
                    if (!waiters.isEmpty()) {
                        Waiter w = waiters.get(data.consumeInt(0, waiters.size() - 1));
                        queue.refuse(w.xid, new IOException("refused by the fuzzer"));
                    }
                }
                case 3 -> {
                    queue.failAll(new EOFException("closed by the fuzzer"));
                    closed = true;
                }
                default -> {
                    int xid = waiters.isEmpty() || data.consumeInt(0, 7) == 0 ? data.consumeInt()
                            : waiters.get(data.consumeInt(0, waiters.size() - 1)).xid;
                    byte[] reply = data.consumeBoolean() ? data.consumeBytes(data.consumeInt(0, 600)) : reply(xid, data);
                    Waiter w = find(waiters, xid);
                    boolean waiting = w != null && w.heard == 0;
                    queue.deliver(xid, ByteBuffer.wrap(reply));
                    if (waiting) {
                        check(w, reply);
                    }
                }
            }
        }
        queue.failAll(new EOFException("closed at the end"));
        for (Waiter w : waiters) {
            require(w.heard == 1, "backward call 0x" + Integer.toHexString(w.xid) + " heard " + w.heard + " times");
        }
        require(queue.size() == 0, "calls still registered after the close: " + queue.size());
    }

    /** A delivered reply to a waiting call: heard at once, completed only if its header is sound. */
    private static void check(Waiter w, byte[] reply) {
        require(w.heard == 1, "the call heard its reply " + w.heard + " times");
        RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkReply(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, reply), 0);
        if (w.completed) {
            require(fault == RpcHeaderCheck.Fault.NONE, "a reply the check refused completed its call: " + fault);
            // Decode it again with every length checked: the check must have left nothing beyond the message.
            try {
                LengthCheckingXdr xdr = new LengthCheckingXdr(reply);
                xdr.beginDecoding();
                xdr.xdrDecodeInt();
                xdr.xdrDecodeInt();
                new RpcReply(w.xid, xdr, null);
            } catch (IOException e) {
                throw new AssertionError("a reply that completed its call does not decode: " + e, e);
            }
        } else if (fault != RpcHeaderCheck.Fault.NONE) {
            require(w.failure instanceof MalformedRpcHeaderException m && m.fault() == fault,
                    "a malformed reply fails its call naming " + fault + ", not with " + w.failure);
        } else {
            require(!(w.failure instanceof MalformedRpcHeaderException), "a sound reply failed as malformed");
            require(!hasError(w.failure), "a sound reply failed with an Error: " + w.failure);
        }
    }

    private static boolean hasError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof Error) {
                return true;
            }
        }
        return false;
    }

    /** A reply built field by field, mostly around valid values. */
    private static byte[] reply(int xid, FuzzedDataProvider data) {
        ByteBuffer b = ByteBuffer.allocate(1024);
        b.putInt(xid).putInt(data.consumeInt(0, 8) == 0 ? data.consumeInt() : RpcMessage.REPLY);
        int replyStat = data.consumeInt(0, 8) == 0 ? data.consumeInt() : data.consumeInt(0, 1);
        b.putInt(replyStat);
        if (replyStat == 0) {
            b.putInt(data.consumeInt(0, 3) == 0 ? data.consumeInt() : 0);
            byte[] body = data.consumeBytes(data.consumeInt(0, 420));
            int claimed = switch (data.consumeInt(0, 5)) {
                case 0 -> data.consumeInt();
                case 1 -> body.length + data.consumeInt(-8, 8);
                default -> body.length;
            };
            b.putInt(claimed).put(body).position((int) Xdr.roundUp(b.position()));
            b.putInt(data.consumeInt(0, 6));
        } else {
            b.putInt(data.consumeInt(0, 2));
        }
        for (int n = data.consumeInt(0, 3); n > 0; n--) {
            b.putInt(data.consumeInt());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static Waiter find(List<Waiter> waiters, int xid) {
        for (Waiter w : waiters) {
            if (w.xid == xid) {
                return w;
            }
        }
        return null;
    }

    static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /** A backward call's caller: what oncrpc4j's RpcCall registers, counting what it hears. */
    private static final class Waiter implements CompletionHandler<RpcReply, RpcTransport> {
        final int xid;
        int heard;
        boolean completed;
        Throwable failure;

        Waiter(int xid) {
            this.xid = xid;
        }

        @Override
        public void completed(RpcReply reply, RpcTransport transport) {
            heard++;
            completed = true;
        }

        @Override
        public void failed(Throwable e, RpcTransport transport) {
            heard++;
            failure = e;
        }
    }

    /** A connection that is only an address and a back channel that forgets. */
    private static final class FakeConnection implements RdmaConnection {
        private final InetSocketAddress remote = new InetSocketAddress(40001);
        private final InetSocketAddress local = new InetSocketAddress(20049);

        @Override
        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public int replySizeLimit() {
            return 4096;
        }

        @Override
        public int receiveSizeLimit() {
            return 4096;
        }

        @Override
        public boolean remoteInvalidationAllowed() {
            return false;
        }

        @Override
        public int grantedCredits() {
            return 1;
        }

        @Override
        public Backchannel backchannel() {
            throw new UnsupportedOperationException("the fuzz test's calls have no timeout");
        }

        @Override
        public TransportStatistics statistics() {
            return new TransportStatistics() {
                @Override
                public long get(Counter counter) {
                    return 0;
                }

                @Override
                public Map<String, Long> readsByStrategy() {
                    return Map.of();
                }
            };
        }

        @Override
        public void close() {
        }
    }
}
