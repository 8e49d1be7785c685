package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * HeaderFuzzTest - mutation fuzzer over valid headers.
 *
 * <p>Asserts that nothing escapes decode but a {@link DecodeStatus}: no
 * exception, every decode returns in bounded time, the parsed holder never
 * grows past its pre-sized capacity, every OK result satisfies the documented
 * invariants, and every OK result re-encodes to a header that decodes to equal
 * content.
 *
 * <p>The quick slice (200,000 inputs) runs with the unit tests. For a long run:
 * {@code ./fuzz-codec 10000000}, or set the system properties
 * {@code rpcrdma4j.fuzz.iterations} and {@code rpcrdma4j.fuzz.seed}. A failure
 * prints the seed, the iteration and the input in hex.
 */
class HeaderFuzzTest {

    static final RpcRdmaLimits FUZZ_LIMITS = RpcRdmaLimits.builder()
            .maxReadSegments(16).maxReadChunks(4).maxWriteChunks(3).maxSegmentsPerChunk(8)
            .maxReadBytes(1 << 20).maxWriteBytes(1 << 20).maxReplyBytes(1 << 20).build();

    /** No single decode may take this long, even on a loaded machine. */
    private static final long MAX_DECODE_NANOS = 5_000_000_000L;

    private final HeaderDecoder responder = new HeaderDecoder(FUZZ_LIMITS, HeaderDecoder.Role.RESPONDER);
    private final HeaderDecoder requester = new HeaderDecoder(FUZZ_LIMITS, HeaderDecoder.Role.REQUESTER);
    private final ParsedHeader parsed = new ParsedHeader(FUZZ_LIMITS);
    private final ParsedHeader again = new ParsedHeader(FUZZ_LIMITS);
    private final HeaderWriter writer = new HeaderWriter();
    private final ByteBuffer reencoded = ByteBuffer.allocate(16384);

    @Test
    void mutatedHeadersOnlyEverDecodeToDocumentedResults() {
        long iterations = Long.getLong("rpcrdma4j.fuzz.iterations", 200_000L);
        long seed = Long.getLong("rpcrdma4j.fuzz.seed", 0x8166_F0220L);
        // A decode that loops fails the test instead of hanging it: the budget is
        // a generous 20 us per input (a decode takes well under 1 us) plus 2 minutes.
        Duration budget = Duration.ofSeconds(120 + iterations / 50_000);
        assertTimeoutPreemptively(budget, () -> fuzz(iterations, seed), "fuzzing took longer than " + budget);
    }

    private void fuzz(long iterations, long seed) {
        HeaderMutator mutator = new HeaderMutator(seed, corpus(seed), 4096);
        ByteBuffer input = ByteBuffer.wrap(mutator.work());
        Map<DecodeStatus, Long> seen = new EnumMap<>(DecodeStatus.class);
        long[] counts = new long[DecodeStatus.values().length];
        long slowest = 0;

        long start = System.nanoTime();
        for (long i = 0; i < iterations; i++) {
            int length = mutator.next();
            HeaderDecoder decoder = (i & 1) == 0 ? responder : requester;
            try {
                long before = System.nanoTime();
                DecodeStatus status = decoder.decode(input, 0, length, parsed);
                slowest = Math.max(slowest, System.nanoTime() - before);
                counts[status.ordinal()]++;
                checkCapacity();
                if (status == DecodeStatus.OK) {
                    checkValid(mutator.work(), length, decoder);
                }
            } catch (Throwable t) {
                throw new AssertionError("seed " + seed + " iteration " + i + " role " + decoder.role()
                        + " input " + HexFormat.of().formatHex(mutator.work(), 0, length), t);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        for (DecodeStatus status : DecodeStatus.values()) {
            if (counts[status.ordinal()] > 0) {
                seen.put(status, counts[status.ordinal()]);
            }
        }
        System.out.printf("fuzz: %,d inputs in %.1f s (%,.0f inputs/s), seed %d, slowest decode %,d ns%n%s%n",
                iterations, seconds, iterations / seconds, seed, slowest, seen);
        assertTrue(slowest < MAX_DECODE_NANOS, "a decode took " + slowest + " ns");
        if (iterations >= 100_000) {
            assertTrue(seen.containsKey(DecodeStatus.OK), "mutations must leave some headers valid");
            assertTrue(seen.size() >= 24, "mutations must reach most rejections: " + seen.keySet());
        }
    }

    private static byte[][] corpus(long seed) {
        RandomHeaders random = new RandomHeaders(seed, FUZZ_LIMITS);
        List<byte[]> headers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            headers.add(random.nextCall().wire.toBytes());
        }
        for (int i = 0; i < 100; i++) {
            headers.add(random.nextReply().wire.toBytes());
        }
        for (int i = 0; i < 20; i++) {
            headers.add(random.nextControl().wire.toBytes());
        }
        return headers.toArray(new byte[0][]);
    }

    /** checkCapacity() - the holder never grows past what the limits sized it for. */
    private void checkCapacity() {
        ReadList reads = parsed.readList();
        WriteList writes = parsed.writeList();
        check(reads.segments().capacity() == FUZZ_LIMITS.maxReadSegments()
                && reads.chunkCapacity() == FUZZ_LIMITS.maxReadChunks()
                && writes.chunkCapacity() == FUZZ_LIMITS.maxWriteChunks()
                && writes.segments().capacity() == FUZZ_LIMITS.maxWriteChunks() * FUZZ_LIMITS.maxSegmentsPerChunk()
                && parsed.replyChunk().capacity() == FUZZ_LIMITS.maxSegmentsPerChunk(), "capacity changed");
        check(reads.segments().count() <= reads.segments().capacity()
                && reads.chunkCount() <= reads.chunkCapacity()
                && writes.chunkCount() <= writes.chunkCapacity()
                && writes.segments().count() <= writes.segments().capacity()
                && parsed.replyChunk().count() <= parsed.replyChunk().capacity(), "count beyond capacity");
    }

    /** checkValid() - what an OK result promises, then the re-encode round trip. */
    private void checkValid(byte[] input, int length, HeaderDecoder decoder) {
        check(parsed.vers() == RpcRdma.VERSION_1, "vers");
        check(parsed.proc() != RpcRdma.RDMA_MSGP && parsed.proc() >= 0 && parsed.proc() <= RpcRdma.RDMA_ERROR, "proc");
        check(parsed.headerLength() >= RpcRdma.BODY_OFFSET && Xdr.isAligned(parsed.headerLength()), "header length");
        check(parsed.bodyOffset() + parsed.bodyLength() == length && parsed.bodyLength() >= 0, "body range");
        checkReadChunks();
        check(parsed.readList().totalLength() <= FUZZ_LIMITS.maxReadBytes()
                && parsed.writeList().totalLength() <= FUZZ_LIMITS.maxWriteBytes()
                && parsed.replyChunk().totalLength() <= FUZZ_LIMITS.maxReplyBytes(), "byte limits");
        for (int c = 0; c < parsed.writeList().chunkCount(); c++) {
            check(parsed.writeList().segmentCount(c) >= 1 || decoder.role() == HeaderDecoder.Role.REQUESTER,
                    "empty write chunk in a call");
        }

        int n = writer.wrap(reencoded, 0, reencoded.capacity()).encode(parsed);
        check(n == parsed.headerLength(), "re-encoded length " + n + " != " + parsed.headerLength());
        reencoded.put(n, input, parsed.bodyOffset(), parsed.bodyLength());
        DecodeStatus status = decoder.decode(reencoded, 0, n + parsed.bodyLength(), again);
        check(status == DecodeStatus.OK, "re-encoded header decodes to " + status);
        check(parsed.contentEquals(again), "re-encoded content differs: " + parsed + " vs " + again);
    }

    private void checkReadChunks() {
        ReadList reads = parsed.readList();
        boolean nomsg = parsed.proc() == RpcRdma.RDMA_NOMSG;
        long inlineLength = nomsg && reads.hasPositionZeroChunk() ? reads.chunkLength(0) : parsed.bodyLength();
        long previousPosition = -1;
        long previousOffset = 0;
        for (int c = 0; c < reads.chunkCount(); c++) {
            long position = reads.position(c);
            check(position > previousPosition && Xdr.isAligned(position), "positions not sorted or aligned");
            check(reads.segmentCount(c) >= 1, "empty read chunk");
            if (c == 0 && position == 0) {
                check(nomsg, "position-zero chunk outside RDMA_NOMSG");
            } else {
                check(reads.inlineOffset(c) >= previousOffset && reads.inlineOffset(c) <= inlineLength,
                        "inline offset out of order or beyond the inline stream");
                previousOffset = reads.inlineOffset(c);
            }
            previousPosition = position;
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
