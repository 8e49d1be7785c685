package org.rpcrdma4j.benchmarks.verbs;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * RDMA READ throughput through the threaded loopback fabric: {@value #PIPELINE} READs in flight
 * (the Linux default ORD), executed by the fabric thread while the benchmark thread polls, as a
 * transport would run. Includes the cross-thread hand-off; on a loaded two-core machine it is the
 * less stable number. Compare with {@link LoopbackReadBenchmark#directBufferCopy()} of that run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class ThreadedLoopbackReadBenchmark {
    static final int PIPELINE = 16;

    @Param({"4096", "65536", "1048576"})
    int size;

    private LoopbackFabric fabric;
    private LoopbackPair pair;
    private SendWorkRequest[] reads;
    private WorkCompletion[] completions;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fabric = LoopbackFabric.threaded();
        pair = new LoopbackPair(fabric.provider(), PIPELINE);
        MemoryRegion exposed = pair.client.register(size, Access.LOCAL_WRITE | Access.REMOTE_READ);
        reads = new SendWorkRequest[PIPELINE];
        for (int i = 0; i < PIPELINE; i++) {
            MemoryRegion sink = pair.server.register(size, Access.LOCAL_WRITE);
            reads[i] = new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, i, SendWorkRequest.SIGNALED)
                    .addSge(sink, 0, size).remote(exposed.address(), exposed.rkey());
            if (i > 0) {
                reads[i - 1].next(reads[i]);
            }
        }
        completions = LoopbackPair.completions(PIPELINE);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            pair.close();
        } finally {
            fabric.close();
        }
    }

    /** {@value #PIPELINE} READs of {@code size} bytes posted as one chain, then all their completions polled. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public void rdmaReadPipelined() throws Exception {
        pair.server.queuePair.postSend(reads[0]);
        LoopbackPair.awaitCompletions(pair.server.completionQueue, completions, PIPELINE);
    }
}
