package org.rpcrdma4j.benchmarks.verbs;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * The READ-to-copy ratio measured interleaved: short alternating windows of loopback RDMA READs
 * and plain direct-buffer copies of the same size, the ratio taken per adjacent pair of windows
 * and reported as the median. On a machine shared with other builds, load drifts between two JMH
 * benchmarks run minutes apart; adjacent windows see the same load, so their ratio is the stable
 * number. Complements {@link LoopbackReadBenchmark} (absolute JMH numbers).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar org.rpcrdma4j.benchmarks.verbs.ReadCopyRatio [pairs] [windowMillis]}.
 */
public final class ReadCopyRatio {
    private static final int[] SIZES = {4096, 65536, 1 << 20};

    private ReadCopyRatio() {
    }

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        long windowNanos = (args.length > 1 ? Long.parseLong(args[1]) : 50) * 1_000_000L;
        System.out.printf("%10s %14s %14s %14s %8s%n", "size", "read MB/s", "copy MB/s", "median ratio", "pairs");
        for (int size : SIZES) {
            measure(size, pairs, windowNanos);
        }
    }

    private static void measure(int size, int pairs, long windowNanos) throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.deterministic(); LoopbackPair pair = new LoopbackPair(fabric.provider(), 16)) {
            MemoryRegion exposed = pair.client.register(size, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion sink = pair.server.register(size, Access.LOCAL_WRITE);
            SendWorkRequest read = new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                    .addSge(sink, 0, size).remote(exposed.address(), exposed.rkey());
            WorkCompletion[] completions = LoopbackPair.completions(1);
            ByteBuffer copySource = ByteBuffer.allocateDirect(size);
            ByteBuffer copySink = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < pairs / 4 + 1; i++) {
                readWindow(fabric, pair, read, completions, windowNanos);
                copyWindow(copySource, copySink, size, windowNanos);
            }
            double[] ratios = new double[pairs];
            double readOps = 0;
            double copyOps = 0;
            for (int i = 0; i < pairs; i++) {
                double r = readWindow(fabric, pair, read, completions, windowNanos);
                double c = copyWindow(copySource, copySink, size, windowNanos);
                ratios[i] = r / c;
                readOps += r;
                copyOps += c;
            }
            Arrays.sort(ratios);
            double mb = size / 1e6;
            System.out.printf("%10d %14.0f %14.0f %14.2f %8d%n", size, readOps / pairs * mb, copyOps / pairs * mb, ratios[pairs / 2], pairs);
        }
    }

    /** @return READs per second over one window */
    private static double readWindow(LoopbackFabric fabric, LoopbackPair pair, SendWorkRequest read, WorkCompletion[] completions, long windowNanos)
            throws VerbsException {
        long start = System.nanoTime();
        long ops = 0;
        long now;
        do {
            for (int i = 0; i < 8; i++) {
                pair.server.queuePair.postSend(read);
                fabric.step();
                if (pair.server.completionQueue.poll(completions, 1) != 1 || !completions[0].isSuccess()) {
                    throw new IllegalStateException("READ did not complete: " + completions[0]);
                }
            }
            ops += 8;
            now = System.nanoTime();
        } while (now - start < windowNanos);
        return ops * 1e9 / (now - start);
    }

    /** @return copies per second over one window */
    private static double copyWindow(ByteBuffer source, ByteBuffer sink, int size, long windowNanos) {
        long start = System.nanoTime();
        long ops = 0;
        long now;
        do {
            for (int i = 0; i < 8; i++) {
                sink.put(0, source, 0, size);
            }
            ops += 8;
            now = System.nanoTime();
        } while (now - start < windowNanos);
        return ops * 1e9 / (now - start);
    }
}
