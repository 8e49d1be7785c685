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
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.loopback.FabricMode;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * SEND/RECV message rate through the loopback fabric, the way an RPC-over-RDMA transport uses it:
 * the receiver keeps {@value #BATCH} receives posted and reposts each batch as one chain; the
 * sender posts a chain of {@value #BATCH} SENDs of {@code size} bytes with only the last signaled.
 * Deterministic mode steps the fabric on the benchmark thread; threaded mode hands off to the
 * fabric thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class LoopbackSendReceiveBenchmark {
    static final int BATCH = 32;

    @Param({"DETERMINISTIC", "THREADED"})
    FabricMode mode;

    @Param({"256"})
    int size;

    private LoopbackFabric fabric;
    private LoopbackPair pair;
    private SendWorkRequest[] sends;
    private ReceiveWorkRequest[] receives;
    private WorkCompletion[] completions;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fabric = LoopbackFabric.builder().mode(mode).build();
        pair = new LoopbackPair(fabric.provider(), BATCH * 2);
        MemoryRegion source = pair.client.register(size, 0);
        MemoryRegion sink = pair.server.register(size * BATCH, Access.LOCAL_WRITE);
        sends = new SendWorkRequest[BATCH];
        receives = new ReceiveWorkRequest[BATCH];
        for (int i = 0; i < BATCH; i++) {
            sends[i] = new SendWorkRequest(1).reset(SendOpcode.SEND, i, i == BATCH - 1 ? SendWorkRequest.SIGNALED : 0).addSge(source, 0, size);
            receives[i] = new ReceiveWorkRequest(1).buffer(sink, i * size, size).id(i);
            if (i > 0) {
                sends[i - 1].next(sends[i]);
                receives[i - 1].next(receives[i]);
            }
        }
        completions = LoopbackPair.completions(BATCH);
        pair.server.queuePair.postReceive(receives[0]);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            pair.close();
        } finally {
            fabric.close();
        }
    }

    /** {@value #BATCH} messages: post the SENDs, deliver, poll the receives and the send, repost the receives. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void sendReceive() throws Exception {
        pair.client.queuePair.postSend(sends[0]);
        if (fabric.mode() == FabricMode.DETERMINISTIC) {
            fabric.runUntilIdle();
        }
        LoopbackPair.awaitCompletions(pair.server.completionQueue, completions, BATCH);
        LoopbackPair.awaitCompletions(pair.client.completionQueue, completions, 1);
        pair.server.queuePair.postReceive(receives[0]);
    }
}
