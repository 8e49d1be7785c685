package org.rpcrdma4j.benchmarks.transport;

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
import org.openjdk.jmh.infra.Blackhole;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * Write-style calls (an NFS WRITE): a small inline head and a 1 MiB read chunk pulled with RDMA
 * READs through each registration strategy on the deterministic loopback; the handler touches
 * every view and releases. Reported per call; multiply by 1 MiB for bytes per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(time = 2)
@Measurement(time = 2)
public class WriteCallReceiveBenchmark {
    @Param({"lkey", "frmr"})
    String strategy;

    @Param({"1048576"})
    int chunkBytes;

    private TransportBench bench;
    private Blackhole sink;
    private int delivered;

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) throws Exception {
        sink = blackhole;
        bench = new TransportBench(TransportConfig.DEFAULTS, this::onCall, strategy, 128, chunkBytes);
    }

    private void onCall(ReceivedCall call) {
        if (call.bodyLength() != 128 + chunkBytes) {
            throw new IllegalStateException("body of " + call.bodyLength() + " bytes");
        }
        for (ByteBuffer view : call.body()) {
            sink.consume(view.get(view.limit() - 1));
        }
        delivered++;
        call.release();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        bench.close();
    }

    @Benchmark
    public int receiveWriteCall() throws Exception {
        bench.client.sendCall();
        int before = delivered;
        bench.settle();
        if (delivered - before != 1) {
            throw new IllegalStateException("call not delivered");
        }
        return delivered;
    }
}
