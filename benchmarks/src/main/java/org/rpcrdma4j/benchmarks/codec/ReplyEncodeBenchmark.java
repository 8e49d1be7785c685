package org.rpcrdma4j.benchmarks.codec;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReplyEncoder;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;

/**
 * ReplyEncodeBenchmark - cost of encoding the reply header to an NFS READ-like call:
 * the write list of one 16-segment chunk echoed with the lengths written.
 *
 * <p>Run with {@code -prof gc}: the target is 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReplyEncodeBenchmark {

    private static final int CAPACITY = 4096;

    private final ReplyEncoder encoder = new ReplyEncoder();
    private final ParsedHeader call = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
    private final ByteBuffer reply = ByteBuffer.allocateDirect(CAPACITY);
    private final long[] written = {10 * 65536 + 1000};

    /** Decode the call whose write list the reply echoes. */
    @Setup
    public void setUp() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(CAPACITY);
        HeaderWriter writer = new HeaderWriter();
        writer.wrap(buffer, 0, CAPACITY).fixedHeader(0x1236, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG).writeChunk(16);
        for (int s = 0; s < 16; s++) {
            writer.segment(0x200 + s, 65536, 0x7f10_0000_0000L + s * 65536L);
        }
        int length = writer.finish();
        DecodeStatus status = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                .decode(buffer, 0, length, call);
        if (status != DecodeStatus.OK) {
            throw new IllegalStateException("call decodes to " + status);
        }
    }

    /** RDMA_MSG reply header echoing one 16-segment write chunk, 10.02 segments used. */
    @Benchmark
    public int encodeMsgReplyWithWriteChunkOf16Segments() {
        return encoder.encodeMsgReply(reply, 0, CAPACITY, call, 32, written);
    }
}
