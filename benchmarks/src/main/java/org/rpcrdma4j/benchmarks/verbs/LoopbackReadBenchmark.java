package org.rpcrdma4j.benchmarks.verbs;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * RDMA READ throughput through the deterministic loopback fabric (post, one fabric step, poll: the
 * whole per-READ cost of the provider on one thread) against a plain direct-buffer copy of the same
 * size, in the same run. Ratio of interest: {@code rdmaRead / directBufferCopy} (ops/s; bytes/s is
 * ops/s × size), target at least 0.8 from 64 KiB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class LoopbackReadBenchmark {
    @Param({"4096", "65536", "1048576"})
    int size;

    private LoopbackFabric fabric;
    private LoopbackPair pair;
    private MemoryRegion exposed;
    private MemoryRegion sink;
    private SendWorkRequest read;
    private WorkCompletion[] completions;
    private ByteBuffer copySource;
    private ByteBuffer copySink;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fabric = LoopbackFabric.deterministic();
        pair = new LoopbackPair(fabric.provider(), 16);
        exposed = pair.client.register(size, Access.LOCAL_WRITE | Access.REMOTE_READ);
        sink = pair.server.register(size, Access.LOCAL_WRITE);
        for (int i = 0; i < size; i++) {
            exposed.buffer().put(i, (byte) i);
        }
        read = new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 1, SendWorkRequest.SIGNALED)
                .addSge(sink, 0, size).remote(exposed.address(), exposed.rkey());
        completions = LoopbackPair.completions(1);
        copySource = ByteBuffer.allocateDirect(size);
        copySink = ByteBuffer.allocateDirect(size);
        copySource.put(0, exposed.buffer(), 0, size);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            pair.close();
        } finally {
            fabric.close();
        }
    }

    /** One RDMA READ of {@code size} bytes: post, execute, poll its completion. */
    @Benchmark
    public int rdmaRead() throws Exception {
        pair.server.queuePair.postSend(read);
        fabric.step();
        if (pair.server.completionQueue.poll(completions, 1) != 1 || !completions[0].isSuccess()) {
            throw new IllegalStateException("READ did not complete: " + completions[0]);
        }
        return completions[0].byteCount();
    }

    /** The baseline: copy {@code size} bytes between two direct buffers. */
    @Benchmark
    public ByteBuffer directBufferCopy() {
        return copySink.put(0, copySource, 0, size);
    }
}
