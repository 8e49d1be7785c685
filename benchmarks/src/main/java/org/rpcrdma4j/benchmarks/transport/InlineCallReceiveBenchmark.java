package org.rpcrdma4j.benchmarks.transport;

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
import org.openjdk.jmh.infra.Blackhole;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Inline call receive: the client's SEND lands in a posted receive buffer, the completion loop
 * decodes the header and hands the call on as a view of that buffer, the handler reads the body's
 * first word and releases, the receive is reposted in a batch. {@value #BATCH} calls per
 * invocation. Target: 0 B/op under {@code -prof gc} (client and fabric included).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class InlineCallReceiveBenchmark {
    static final int BATCH = 16;

    @Param({"200"})
    int inlineBytes;

    private TransportBench bench;
    private Blackhole sink;
    private int delivered;

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) throws Exception {
        sink = blackhole;
        bench = new TransportBench(TransportConfig.DEFAULTS, this::onCall, "lkey", inlineBytes, 0);
    }

    private void onCall(ReceivedCall call) {
        sink.consume(call.body().get(0).getInt(call.body().get(0).position()));
        delivered++;
        call.release();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        bench.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int receiveInlineCalls() throws Exception {
        for (int i = 0; i < BATCH; i++) {
            bench.client.sendCall();
        }
        int before = delivered;
        bench.settle();
        if (delivered - before != BATCH) {
            throw new IllegalStateException("delivered " + (delivered - before) + " of " + BATCH);
        }
        return delivered;
    }
}
