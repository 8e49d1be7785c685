package org.rpcrdma4j.benchmarks.hosted;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * ServerCostBenchmark - what the server side costs per call, each transport with the thinnest
 * client it allows: the host server serving {@link BenchProgram} over RPC-over-RDMA through the
 * oncrpc4j bridge (loopback fabric, {@link RawRdmaChannel}) and over oncrpc4j's TCP service
 * ({@link TcpChannel}). Neither client allocates per call, so {@code -prof gc}'s
 * {@code gc.alloc.rate.norm} is the server's: the transport, the bridge or Grizzly, oncrpc4j's
 * call objects and the host's dispatch (issue #13: the bridge at most half of what oncrpc4j's TCP
 * path allocates per call). {@link RdmaVsTcpBenchmark} compares the transports with a full RDMA
 * client, whose own objects its allocation figures include.
 *
 * <p>Run: {@code java -jar benchmarks.jar -prof gc ServerCost}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class ServerCostBenchmark extends RoundTripBenchmark {
    @Override
    RpcChannel connect(BenchServer server) throws Exception {
        return server.connectThin(echo.calls[0].remaining(), 4096);
    }

    /** A NULL and an ECHO call answered correctly (the thin channels check replies in place only). */
    @Override
    void check(String when) throws Exception {
        long before = failures();
        run(nullCall);
        run(echo);
        if (failures() > before) {
            throw new IllegalStateException(transport + " " + when + ": a NULL or ECHO reply failed the check");
        }
    }
}
