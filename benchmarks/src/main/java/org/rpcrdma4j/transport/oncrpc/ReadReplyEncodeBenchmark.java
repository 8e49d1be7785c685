package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * ReadReplyEncodeBenchmark - encoding an NFS READ-shaped reply (a 128-byte header, then the
 * data as an opaque) into a call's {@link CallXdr}, as oncrpc4j and the NFSv3 program do on an
 * RDMA worker: with the reply's memory sized up front from the DDP item ({@code sized}), or
 * started in the pending reply's 4 KiB memory and grown at the data ({@code grown}). The pending
 * reply lends the same direct buffer every time, as the transport's pool does in steady state,
 * so the difference is the growth itself. In the benchmarks jar's copy of the transport's
 * package because CallXdr is package-private (the jar is a class path, not a module).
 *
 * <pre>./bench -f 1 -wi 3 -i 5 -prof gc ReadReplyEncode</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReadReplyEncodeBenchmark {

    @Param({"4096", "65536"})
    int count;

    private final CallXdr xdr = new CallXdr();
    private final Buffer call = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, new byte[64]);
    private ByteBuffer data;
    private Lending reply;

    /** A pending reply with 4 KiB of its own and one direct buffer it lends every time. */
    static final class Lending implements PendingReply {
        final ByteBuffer own = ByteBuffer.allocate(4096);
        final ByteBuffer lent;

        Lending(int capacity) {
            lent = ByteBuffer.allocateDirect(capacity);
        }

        @Override public int xid() { return 1; }
        @Override public RdmaConnection connection() { return null; }
        @Override public long writeChunkCapacity() { return 0; }
        @Override public long replyChunkCapacity() { return 0; }
        @Override public ByteBuffer replyBuffer() { return own.clear(); }
        @Override public ByteBuffer largerReplyBuffer(int capacity) { return lent.clear(); }
        @Override public void send(ByteBuffer rpcReply, int ddpItemOffset) { }
        @Override public void abandon() { }
    }

    @Setup
    public void setUp() {
        data = ByteBuffer.allocateDirect(count);
        reply = new Lending(2 * count + 8192);
    }

    private ByteBuffer encode(int itemBytes) {
        xdr.begin(call, 0, reply, itemBytes);
        xdr.beginEncoding();
        for (int i = 0; i < 32; i++) {
            xdr.xdrEncodeInt(i);
        }
        xdr.xdrEncodeByteBuffer(data.clear());
        xdr.endEncoding();
        ByteBuffer encoded = xdr.encoded();
        xdr.reset();
        return encoded;
    }

    @Benchmark
    public ByteBuffer sized() {
        return encode(count);
    }

    @Benchmark
    public ByteBuffer grown() {
        return encode(0);
    }

    /**
     * The rows in a plain loop, reporting the thread's CPU time per reply (mean and standard
     * deviation over rounds), for a host where wall-clock scores scatter:
     * {@code java -cp benchmarks.jar org.rpcrdma4j.transport.oncrpc.ReadReplyEncodeBenchmark [ROUNDS] [OPS]}.
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int count : new int[] {4096, 65536}) {
            ReadReplyEncodeBenchmark b = new ReadReplyEncodeBenchmark();
            b.count = count;
            b.setUp();
            for (boolean sized : new boolean[] {false, true, false, true}) {
                double[] ns = new double[rounds];
                for (int i = 0; i < ops; i++) {
                    b.encode(sized ? count : 0);
                }
                for (int k = 0; k < rounds; k++) {
                    long t0 = threads.getCurrentThreadCpuTime();
                    for (int i = 0; i < ops; i++) {
                        b.encode(sized ? count : 0);
                    }
                    ns[k] = (threads.getCurrentThreadCpuTime() - t0) / (double) ops;
                }
                double mean = java.util.Arrays.stream(ns).average().orElse(0);
                double sd = Math.sqrt(java.util.Arrays.stream(ns).map(v -> (v - mean) * (v - mean)).sum() / (rounds - 1));
                System.out.printf("%-6s count %6d: %8.0f +- %5.0f cpu ns/reply%n", sized ? "sized" : "grown", count, mean, sd);
            }
        }
    }
}
