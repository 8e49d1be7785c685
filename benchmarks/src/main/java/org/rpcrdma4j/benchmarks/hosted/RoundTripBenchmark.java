package org.rpcrdma4j.benchmarks.hosted;

import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * RoundTripBenchmark - the small-call round trips both hosted benchmarks measure: NULL and a
 * {@value #ECHO_BYTES}-byte ECHO, one at a time and {@value #IN_FLIGHT} in flight on one
 * connection (score per call), against a fresh {@link BenchServer} per (benchmark, transport).
 * A subclass chooses the client ({@link #connect}) and may add workloads and checks.
 *
 * <p>Correctness: every reply is checked on the hot path (xid, accepted SUCCESS, length, first
 * result word); failures are counted and fail the trial in teardown.
 *
 * <p>Diagnosis: {@code -jvmArgsAppend -Dbench.serverStatistics=true} prints the RDMA server's
 * counters at the end of each trial (calls run on the loop, sleeps, spin hits and misses).
 */
@State(Scope.Thread)
public abstract class RoundTripBenchmark {
    static final int IN_FLIGHT = 8;
    static final int ECHO_BYTES = 128;

    @Param({BenchServer.RDMA, BenchServer.TCP})
    String transport;

    /**
     * RDMA only: the transport's completionSpinMicros and the client's spinMicros (how long the
     * server's completion loop and the waiting caller keep polling before they sleep). 0, the
     * default of both, sleeps at once; TCP rows ignore it.
     */
    @Param("0")
    int spinMicros;

    BenchServer server;
    RpcChannel channel;
    Workload nullCall;
    Workload echo;
    private Workload nullInFlight;
    private Workload echoInFlight;
    int xid;
    private long replies;
    private long failures;

    /** @return the client channel this benchmark measures with */
    abstract RpcChannel connect(BenchServer server) throws Exception;

    /** Checks after connecting, and again before closing; a failure fails the trial. */
    abstract void check(String when) throws Exception;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        nullCall = Workload.nullCalls(1);
        echo = Workload.echoCalls(ECHO_BYTES, 1);
        nullInFlight = Workload.nullCalls(IN_FLIGHT);
        echoInFlight = Workload.echoCalls(ECHO_BYTES, IN_FLIGHT);
        xid = ThreadLocalRandom.current().nextInt();
        server = BenchServer.start(transport, spinMicros);
        try {
            channel = connect(server);
            check("setup");
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            check("teardown");
            if (Boolean.getBoolean("bench.serverStatistics")) {
                System.out.println(transport + " server counters: " + server.statistics());
            }
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

    /** One ECHO call of {@value #ECHO_BYTES} bytes and its reply. */
    @Benchmark
    public void echo128() throws Exception {
        run(echo);
    }

    /** {@value #IN_FLIGHT} NULL calls sent at once, then their replies; the score counts calls. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void nullCall8InFlight() throws Exception {
        run(nullInFlight);
    }

    /** {@value #IN_FLIGHT} ECHO calls of {@value #ECHO_BYTES} bytes sent at once, then their replies. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void echo128x8InFlight() throws Exception {
        run(echoInFlight);
    }

    /** Sends the workload's calls, checks their replies, counts both. */
    final void run(Workload workload) throws Exception {
        failures += channel.run(workload, xid);
        replies += workload.inFlight();
        xid += workload.inFlight();
    }

    /** @return replies that failed the hot-path check so far */
    final long failures() {
        return failures;
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
