package org.rpcrdma4j.benchmarks.hosted;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class ServerCostBenchmark {
    @Param({BenchServer.RDMA, BenchServer.TCP})
    String transport;

    private BenchServer server;
    private RpcChannel channel;
    private Workload nullCall;
    private Workload echo;
    private Workload nullInFlight;
    private Workload echoInFlight;
    private int xid;
    private long replies;
    private long failures;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        nullCall = Workload.nullCalls(1);
        echo = Workload.echoCalls(RdmaVsTcpBenchmark.ECHO_BYTES, 1);
        nullInFlight = Workload.nullCalls(RdmaVsTcpBenchmark.IN_FLIGHT);
        echoInFlight = Workload.echoCalls(RdmaVsTcpBenchmark.ECHO_BYTES, RdmaVsTcpBenchmark.IN_FLIGHT);
        xid = ThreadLocalRandom.current().nextInt();
        server = BenchServer.start(transport);
        try {
            channel = server.connectThin(echo.calls[0].remaining(), 4096);
            run(nullCall);
            run(echo);
            if (failures > 0) {
                throw new IllegalStateException(transport + ": the first calls failed the check");
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            if (failures > 0) {
                throw new IllegalStateException(transport + ": " + failures + " of " + replies
                        + " replies failed the check; the score is not valid. Server: " + server.statistics());
            }
        } finally {
            close();
        }
    }

    /** One NULL call and its reply. */
    @Benchmark
    public void nullCall() throws Exception {
        run(nullCall);
    }

    /** One ECHO call of 128 bytes and its reply. */
    @Benchmark
    public void echo128() throws Exception {
        run(echo);
    }

    /** 8 NULL calls sent at once, then their replies; the score counts calls. */
    @Benchmark
    @OperationsPerInvocation(RdmaVsTcpBenchmark.IN_FLIGHT)
    public void nullCall8InFlight() throws Exception {
        run(nullInFlight);
    }

    /** 8 ECHO calls of 128 bytes sent at once, then their replies. */
    @Benchmark
    @OperationsPerInvocation(RdmaVsTcpBenchmark.IN_FLIGHT)
    public void echo128x8InFlight() throws Exception {
        run(echoInFlight);
    }

    private void run(Workload workload) throws Exception {
        failures += channel.run(workload, xid);
        replies += workload.inFlight();
        xid += workload.inFlight();
    }

    private void close() throws Exception {
        try {
            if (channel != null) {
                channel.close();
            }
        } finally {
            channel = null;
            if (server != null) {
                server.close();
            }
            server = null;
        }
    }
}
