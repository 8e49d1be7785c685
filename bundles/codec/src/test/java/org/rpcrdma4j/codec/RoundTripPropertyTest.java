package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded property tests: random valid headers decode to exactly the content
 * they were built from, and encoding that content gives back an equivalent
 * header (the same bytes when the read items were already in position order).
 */
class RoundTripPropertyTest {

    private static final long SEED = 0x8166_0001L;
    private static final int CASES = 5_000;

    private final ParsedHeader parsed = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
    private final ParsedHeader again = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
    private final HeaderWriter writer = new HeaderWriter();
    private final ByteBuffer scratch = ByteBuffer.allocate(8192);

    @Test
    void callsRoundTrip() {
        RandomHeaders random = new RandomHeaders(SEED, RpcRdmaLimits.DEFAULTS);
        HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);
        int unsorted = 0;
        for (int i = 0; i < CASES; i++) {
            RandomHeaders.Expected e = random.nextCall();
            checkRoundTrip(decoder, e, "call " + i);
            unsorted += e.readsInWireOrder ? 0 : 1;
        }
        assertTrue(unsorted > CASES / 20, "the generator must also produce unsorted read lists: " + unsorted);
    }

    @Test
    void repliesRoundTrip() {
        RandomHeaders random = new RandomHeaders(SEED + 1, RpcRdmaLimits.DEFAULTS);
        HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.REQUESTER);
        for (int i = 0; i < CASES; i++) {
            checkRoundTrip(decoder, random.nextReply(), "reply " + i);
        }
    }

    @Test
    void errorsAndDoneRoundTrip() {
        RandomHeaders random = new RandomHeaders(SEED + 2, RpcRdmaLimits.DEFAULTS);
        HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.REQUESTER);
        for (int i = 0; i < 300; i++) {
            RandomHeaders.Expected e = random.nextControl();
            checkRoundTrip(decoder, e, "control " + i);
            assertEquals(e.errorCode, parsed.errorCode());
        }
    }

    private void checkRoundTrip(HeaderDecoder decoder, RandomHeaders.Expected e, String name) {
        byte[] wire = e.wire.toBytes();
        assertEquals(DecodeStatus.OK, decoder.decode(ByteBuffer.wrap(wire), 0, wire.length, parsed), name);
        assertMatches(e, parsed, name);

        int n = writer.wrap(scratch, 0, scratch.capacity()).encode(parsed);
        assertEquals(e.wire.headerLength(), n, name);
        if (e.readsInWireOrder) {
            assertArrayEquals(Arrays.copyOf(wire, n), Arrays.copyOf(scratch.array(), n), name);
        }
        scratch.put(n, wire, n, wire.length - n);
        assertEquals(DecodeStatus.OK, decoder.decode(scratch, 0, wire.length, again), name);
        assertTrue(parsed.contentEquals(again), name + ": " + parsed + " vs " + again);
    }

    private static void assertMatches(RandomHeaders.Expected e, ParsedHeader h, String name) {
        assertEquals(e.xid, h.xid(), name);
        assertEquals(e.credits, h.credits(), name);
        assertEquals(e.proc, h.proc(), name);
        assertEquals(e.bodyLength, h.bodyLength(), name);
        assertEquals(e.wire.headerLength(), h.headerLength(), name);
        ReadList reads = h.readList();
        assertEquals(e.reads.size(), reads.chunkCount(), name);
        for (int c = 0; c < e.reads.size(); c++) {
            RandomHeaders.ReadChunk chunk = e.reads.get(c);
            assertEquals(Integer.toUnsignedLong(chunk.position()), reads.position(c), name);
            assertEquals(chunk.inlineOffset(), reads.inlineOffset(c), name);
            assertEquals(chunk.length(), reads.chunkLength(c), name);
            assertSegments(chunk.segments(), reads.segments(), reads.firstSegment(c), reads.segmentCount(c), name);
        }
        WriteList writes = h.writeList();
        assertEquals(e.writes.size(), writes.chunkCount(), name);
        for (int c = 0; c < e.writes.size(); c++) {
            assertSegments(e.writes.get(c), writes.segments(), writes.firstSegment(c), writes.segmentCount(c), name);
        }
        assertSegments(e.reply, h.replyChunk(), 0, h.replyChunk().count(), name);
    }

    private static void assertSegments(List<RandomHeaders.Segment> expected, SegmentList actual, int first,
                                       int count, String name) {
        assertEquals(expected.size(), count, name);
        for (int i = 0; i < count; i++) {
            RandomHeaders.Segment s = expected.get(i);
            assertEquals(s.handle(), actual.handle(first + i), name);
            assertEquals(Integer.toUnsignedLong(s.length()), actual.length(first + i), name);
            assertEquals(s.offset(), actual.offset(first + i), name);
        }
    }
}
