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
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;

/**
 * HeaderDecodeBenchmark - cost of decoding one RPC-over-RDMA call header into a reused ParsedHeader.
 *
 * <p>Three shapes a server meets: a short call (RDMA_MSG, no chunks), an
 * NFS WRITE-like call with one read chunk of 8 segments, and an NFS READ-like
 * call with a write list of one 16-segment chunk. Messages sit in direct
 * buffers, as in registered receive memory, each followed by a 200-byte inline
 * body. Run with {@code -prof gc}: the target is 0 B/op.
 *
 * <pre>./bench -f 1 -wi 3 -i 5 -prof gc codec</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HeaderDecodeBenchmark {

    private static final int BODY = 200;
    private static final int CAPACITY = 4096;

    private final HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);
    private final ParsedHeader parsed = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

    private ByteBuffer noChunks;
    private int noChunksLength;
    private ByteBuffer readChunk8;
    private int readChunk8Length;
    private ByteBuffer writeChunk16;
    private int writeChunk16Length;

    /** Lay the three messages out once, with the production encoder, and check they decode. */
    @Setup
    public void setUp() {
        HeaderWriter writer = new HeaderWriter();

        noChunks = ByteBuffer.allocateDirect(CAPACITY);
        noChunksLength = withBody(writer.wrap(noChunks, 0, CAPACITY)
                .fixedHeader(0x1234, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG).finish());

        readChunk8 = ByteBuffer.allocateDirect(CAPACITY);
        writer.wrap(readChunk8, 0, CAPACITY).fixedHeader(0x1235, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG);
        for (int s = 0; s < 8; s++) {
            writer.readChunk(120, 0x100 + s, 65536, 0x7f00_0000_0000L + s * 65536L);
        }
        readChunk8Length = withBody(writer.finish());

        writeChunk16 = ByteBuffer.allocateDirect(CAPACITY);
        writer.wrap(writeChunk16, 0, CAPACITY).fixedHeader(0x1236, RpcRdma.VERSION_1, 32, RpcRdma.RDMA_MSG)
                .writeChunk(16);
        for (int s = 0; s < 16; s++) {
            writer.segment(0x200 + s, 65536, 0x7f10_0000_0000L + s * 65536L);
        }
        writeChunk16Length = withBody(writer.finish());

        check(decodeNoChunks(), "no chunks");
        check(decodeReadChunkOf8Segments(), "read chunk");
        check(decodeWriteChunkOf16Segments(), "write chunk");
    }

    private static int withBody(int headerLength) {
        return headerLength + BODY;
    }

    private static void check(DecodeStatus status, String what) {
        if (status != DecodeStatus.OK) {
            throw new IllegalStateException(what + " decodes to " + status);
        }
    }

    /** RDMA_MSG with three empty lists. */
    @Benchmark
    public DecodeStatus decodeNoChunks() {
        return decoder.decode(noChunks, 0, noChunksLength, parsed);
    }

    /** RDMA_MSG with one read chunk of 8 segments at position 120. */
    @Benchmark
    public DecodeStatus decodeReadChunkOf8Segments() {
        return decoder.decode(readChunk8, 0, readChunk8Length, parsed);
    }

    /** RDMA_MSG with a write list of one chunk of 16 segments. */
    @Benchmark
    public DecodeStatus decodeWriteChunkOf16Segments() {
        return decoder.decode(writeChunk16, 0, writeChunk16Length, parsed);
    }
}
