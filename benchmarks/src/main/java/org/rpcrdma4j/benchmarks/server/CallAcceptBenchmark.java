package org.rpcrdma4j.benchmarks.server;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.server.ProgramTable;
import org.rpcrdma4j.server.RpcCallDispatcher;

/**
 * CallAcceptBenchmark - what the host server pays to accept one call's RPC header and hand it
 * to its program (issue #33, item 3), on the thread that serves it
 * ({@link RpcCallDispatcher#serve}): the header check, the credential, and a program that reads
 * the call's one argument word and answers nothing. Both rows carry an AUTH_SYS credential as
 * Linux's client sends it (its node name, uid, gid, 16 gids):
 * <ul>
 * <li>{@code sameCredential}: every call carries the same credential bytes, as one user's calls
 *     do: the dispatcher's table of kept credentials answers it;</li>
 * <li>{@code newCredentialEveryCall}: the stamp differs in every call, so each is decoded by
 *     oncrpc4j (a String, an int[], a Subject with 18 principals) and kept, replacing another:
 *     the cost every call paid before the table, plus the table's own.</li>
 * </ul>
 *
 * <pre>./bench -f 2 -wi 3 -i 5 -prof gc CallAccept</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CallAcceptBenchmark {
    private static final int PROGRAM = 0x2000_0103;
    private static final int VERSION = 1;
    private static final int GIDS = 16;

    private RpcCallDispatcher dispatcher;
    private final NullTransport transport = new NullTransport();
    private byte[] call;
    private int stampOffset;
    private int stamp;
    /** Sum of the argument words the program read (kept so the work is not dead). */
    private long sum;

    @Setup
    public void setUp() {
        ProgramTable programs = new ProgramTable();
        programs.register(new OncRpcProgram(PROGRAM, VERSION), rpcCall -> {
            RpcAuthTypeUnix credential = (RpcAuthTypeUnix) rpcCall.getCredential();
            sum += rpcCall.getXdr().xdrDecodeInt() + credential.uid();
        });
        dispatcher = new RpcCallDispatcher(programs, Runnable::run);
        byte[] name = "client-node-17.example.org".getBytes(StandardCharsets.US_ASCII);
        int padded = (name.length + 3) & ~3;
        int bodyLength = 20 + padded + 4 * GIDS;
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.CREDENTIAL_OFFSET + 8 + bodyLength + 8 + 4);
        b.putInt(1).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(PROGRAM).putInt(VERSION).putInt(1);
        b.putInt(RpcMessage.AUTH_SYS).putInt(bodyLength);
        stampOffset = b.position();
        b.putInt(0).putInt(name.length).put(name).position(b.position() + padded - name.length);
        b.putInt(1000).putInt(100).putInt(GIDS);
        for (int g = 0; g < GIDS; g++) {
            b.putInt(200 + g);
        }
        b.putInt(RpcMessage.AUTH_NONE).putInt(0).putInt(42);
        call = b.array();
    }

    @Benchmark
    public long sameCredential() {
        dispatcher.serve(new Xdr(call.clone()), transport);
        return sum;
    }

    @Benchmark
    public long newCredentialEveryCall() {
        byte[] message = call.clone();
        ByteBuffer.wrap(message).putInt(stampOffset, ++stamp);
        dispatcher.serve(new Xdr(message), transport);
        return sum;
    }

    /** A transport that sends nothing: the program answers nothing either. */
    private static final class NullTransport implements RpcTransport {
        private final ReplyQueue replyQueue = new ReplyQueue();
        private final InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 700);

        @Override
        public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
            handler.completed(0, attachment);
        }

        @Override
        public ReplyQueue getReplyQueue() {
            return replyQueue;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public InetSocketAddress getLocalSocketAddress() {
            return peer;
        }

        @Override
        public InetSocketAddress getRemoteSocketAddress() {
            return peer;
        }

        @Override
        public RpcTransport getPeerTransport() {
            return this;
        }

        @Override
        public void startTLS() {
            throw new IllegalStateException("no TLS here");
        }

        @Override
        public boolean isTLS() {
            return false;
        }
    }
}
