package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Decoding and reply encoding allocate nothing in steady state, measured with
 * the JVM's per-thread allocation counter (the JMH gc profiler measures the
 * same thing under the benchmarks).
 */
class DecodeAllocationTest {

    private static final int ROUNDS = 20_000;

    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void decodingAllocatesNothing() {
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        ByteBuffer[] messages = {
            WireBuilder.msg(1, 8).noChunks().body(100).toDirectBuffer(0, 0),
            WireBuilder.msg(2, 8).read(40, 1, 4000, 0).read(8, 2, 6, 0).read(40, 3, 96, 0).end()
                    .chunk(2).segment(4, 4096, 0).segment(5, 4096, 0).end()
                    .chunk(1).segment(6, 1024, 0).body(64).toDirectBuffer(0, 0),
            WireBuilder.nomsg(3, 8).read(0, 1, 400, 0).read(100, 2, 8, 0).end().end()
                    .chunk(1).segment(6, 1024, 0).toDirectBuffer(0, 0),
            WireBuilder.msg(4, 8).end().chunk(0).end().end().toDirectBuffer(0, 0),
        };
        HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);
        ParsedHeader out = new ParsedHeader(RpcRdmaLimits.DEFAULTS);

        long okCount = decodeAll(decoder, messages, out);
        long before = threads.getCurrentThreadAllocatedBytes();
        okCount = decodeAll(decoder, messages, out);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals(3L * ROUNDS, okCount);
        assertTrue(allocated < 1024, allocated + " bytes for " + 4 * ROUNDS + " decodes");
    }

    @Test
    void encodingARepliesAllocatesNothing() {
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        WireBuilder wire = WireBuilder.msg(2, 8).end().chunk(2).segment(4, 4096, 0).segment(5, 4096, 0).end()
                .chunk(1).segment(6, 1024, 0);
        ParsedHeader call = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
        new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER)
                .decode(wire.toBuffer(), 0, wire.length(), call);
        ReplyEncoder encoder = new ReplyEncoder();
        ByteBuffer dst = ByteBuffer.allocateDirect(256);
        long[] written = {5000};

        long bytes = encodeAll(encoder, dst, call, written);
        long before = threads.getCurrentThreadAllocatedBytes();
        bytes += encodeAll(encoder, dst, call, written);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertTrue(bytes > 0);
        assertTrue(allocated < 1024, allocated + " bytes for " + 2 * ROUNDS + " encodes");
    }

    @Test
    void aHolderTakesItsSegmentTablesWhenAPeerFillsThemNotBefore() {
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        // a transport keeps one holder per receive context (2 x credits + back channel per
        // connection): sized at the limits up front, 1,000 connections held over a GiB of tables
        long before = threads.getCurrentThreadAllocatedBytes();
        ParsedHeader out = new ParsedHeader(RpcRdmaLimits.DEFAULTS);
        long fresh = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(fresh < 2048, fresh + " bytes for a fresh holder");

        WireBuilder wide = WireBuilder.msg(5, 8);
        for (int s = 0; s < RpcRdmaLimits.DEFAULTS.maxReadSegments(); s++) {
            wide.read(40, s + 1, 4096, (long) s * 4096);
        }
        ByteBuffer atTheLimit = wide.end().end().end().body(64).toDirectBuffer(0, 0);
        wide = WireBuilder.msg(6, 8);
        for (int s = 0; s <= RpcRdmaLimits.DEFAULTS.maxReadSegments(); s++) {
            wide.read(40, s + 1, 4096, (long) s * 4096);
        }
        ByteBuffer pastTheLimit = wide.end().end().end().body(64).toDirectBuffer(0, 0);
        HeaderDecoder decoder = new HeaderDecoder(RpcRdmaLimits.DEFAULTS, HeaderDecoder.Role.RESPONDER);

        assertEquals(DecodeStatus.OK, decoder.decode(atTheLimit, 0, atTheLimit.capacity(), out));
        assertEquals(RpcRdmaLimits.DEFAULTS.maxReadSegments(), out.readList().segments().count());
        assertTrue(out.fits(RpcRdmaLimits.DEFAULTS));
        assertTrue(decoder.decode(pastTheLimit, 0, pastTheLimit.capacity(), out) != DecodeStatus.OK,
                "one segment past the limit is refused, not grown into");
        before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1000; i++) {
            decoder.decode(atTheLimit, 0, atTheLimit.capacity(), out);
        }
        long grown = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(grown < 1024, grown + " bytes for 1,000 decodes once the tables have grown");
    }

    private static long decodeAll(HeaderDecoder decoder, ByteBuffer[] messages, ParsedHeader out) {
        long ok = 0;
        for (int i = 0; i < ROUNDS; i++) {
            for (ByteBuffer message : messages) {
                if (decoder.decode(message, 0, message.capacity(), out) == DecodeStatus.OK) {
                    ok++;
                }
            }
        }
        return ok;
    }

    private static long encodeAll(ReplyEncoder encoder, ByteBuffer dst, ParsedHeader call, long[] written) {
        long bytes = 0;
        for (int i = 0; i < ROUNDS; i++) {
            bytes += encoder.encodeMsgReply(dst, 0, dst.capacity(), call, 32, written);
            bytes += encoder.encodeNomsgReply(dst, 0, dst.capacity(), call, 32, written, 100);
        }
        return bytes;
    }
}
