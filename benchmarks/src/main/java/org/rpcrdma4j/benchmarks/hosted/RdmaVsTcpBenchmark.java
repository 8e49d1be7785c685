package org.rpcrdma4j.benchmarks.hosted;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RdmaVsTcpBenchmark - the same oncrpc4j program ({@link BenchProgram}) served by the host server
 * over RPC-over-RDMA on the threaded loopback fabric ({@code transport=rdma}) and over oncrpc4j's
 * TCP service on 127.0.0.1 ({@code transport=tcp}), in one JMH run (issue #5). Each
 * (benchmark, transport) pair runs in its own fork with a fresh server and one client connection.
 *
 * <ul>
 * <li>Small calls, round-trip rate: NULL and a {@value #ECHO_BYTES}-byte ECHO, one at a time
 *     and {@value #IN_FLIGHT} in flight on the one connection (score per call).</li>
 * <li>Small READs, as the lab's random reads: {@value #SMALL_READ_BYTES} bytes,
 *     {@value #IN_FLIGHT} in flight, the data by RDMA WRITE over RDMA.</li>
 * <li>Small WRITEs, as the lab's random writes: {@value #SMALL_READ_BYTES} bytes,
 *     {@value #IN_FLIGHT} in flight, the data in a read chunk over RDMA (pulled by RDMA READ).</li>
 * <li>Bulk replies: READ of {@value #READ_BYTES} bytes, one at a time. Over RDMA the client offers
 *     a write chunk and the program's binding marks the data DDP-eligible, so the server moves
 *     it by RDMA WRITE and only a 28-byte reduced reply goes inline. MB/s = ops/s x 1.048576.</li>
 * </ul>
 *
 * <p>Correctness: every reply is checked on the hot path (xid, accepted SUCCESS, length, first
 * result word, and over RDMA that the data came into the write chunk); failures are counted and
 * fail the trial in teardown. Setup and teardown each make one call of every kind and compare the
 * whole RPC reply byte for byte with the reply built independently by {@link BenchRpc}.
 *
 * <p>Run: {@code ./bench -f 1 -wi 2 -i 3 RdmaVsTcp}. Two cores and several threads per side
 * (client, server loop, fabric or selector, workers): note the load average with the result.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class RdmaVsTcpBenchmark extends RoundTripBenchmark {
    static final int READ_BYTES = 1 << 20;
    /** The lab's random reads: an NFS READ of one page. */
    static final int SMALL_READ_BYTES = 4096;

    private Workload read;
    private Workload smallRead;
    private Workload smallReadsInFlight;
    private Workload smallWrite;
    private Workload smallWritesInFlight;

    @Override
    RpcChannel connect(BenchServer server) throws Exception {
        read = Workload.readCalls(READ_BYTES, 1);
        smallRead = Workload.readCalls(SMALL_READ_BYTES, 1);
        smallReadsInFlight = Workload.readCalls(SMALL_READ_BYTES, IN_FLIGHT);
        smallWrite = Workload.writeCalls(SMALL_READ_BYTES, 1);
        smallWritesInFlight = Workload.writeCalls(SMALL_READ_BYTES, IN_FLIGHT);
        return server.connect(IN_FLIGHT, Math.max(echo.calls[0].remaining(), smallWrite.calls[0].remaining()),
                read.replyLength);
    }

    /** One READ of {@value #READ_BYTES} bytes (over RDMA: RDMA WRITE into the client's write chunk). */
    @Benchmark
    public void read1MiB() throws Exception {
        run(read);
    }

    /**
     * {@value #IN_FLIGHT} READs of {@value #SMALL_READ_BYTES} bytes sent at once, then their
     * replies: the host's counterpart of the lab's 4 KiB random reads (over RDMA each reply's data
     * goes by RDMA WRITE into its call's write chunk, as the Linux client offers one for a page).
     */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void read4KiBx8InFlight() throws Exception {
        run(smallReadsInFlight);
    }

    /**
     * {@value #IN_FLIGHT} WRITEs of {@value #SMALL_READ_BYTES} bytes sent at once, then their
     * replies: the host's counterpart of the lab's 4 KiB random writes (over RDMA each call's data
     * goes in a read chunk, as the Linux client sends a page of WRITE data, and the server pulls it
     * with RDMA READ before the program runs).
     */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void write4KiBx8InFlight() throws Exception {
        run(smallWritesInFlight);
    }

    /** One call of every kind, each whole reply compared byte for byte with the expected one. */
    @Override
    void check(String when) throws Exception {
        for (Workload w : List.of(nullCall, echo, read, smallRead, smallWrite)) {
            byte[] expected = BenchRpc.expectedReply(xid, w.results);
            byte[] actual = channel.wholeReply(w, xid);
            xid++;
            int at = Arrays.mismatch(expected, actual);
            if (at >= 0) {
                throw new IllegalStateException(transport + " " + when + ": " + w + " reply differs at byte " + at + " of "
                        + expected.length + " (got " + actual.length + " bytes)");
            }
        }
    }
}
