package org.rpcrdma4j.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * RandomHeaders - test utility generating random VALID headers together with
 * the content a decoder must find in them.
 *
 * <p>Headers are laid out with {@link WireBuilder} (not the production
 * encoders). Read items are interleaved across chunks in random order while
 * keeping each chunk's own segment order, so decoding exercises grouping and
 * sorting. Everything stays within the given limits. Seeded: the same seed
 * gives the same sequence.
 */
final class RandomHeaders {

    record Segment(int handle, int length, long offset) {
    }

    record ReadChunk(int position, long inlineOffset, List<Segment> segments) {
        long length() {
            long sum = 0;
            for (Segment s : segments) {
                sum += Integer.toUnsignedLong(s.length());
            }
            return sum;
        }
    }

    /** What a decoder must report for {@link #wire}. */
    static final class Expected {
        int xid;
        int credits;
        int proc;
        int bodyLength;
        int errorCode;
        final List<ReadChunk> reads = new ArrayList<>();
        final List<List<Segment>> writes = new ArrayList<>();
        final List<Segment> reply = new ArrayList<>();
        boolean readsInWireOrder = true;
        WireBuilder wire;
    }

    private final Random random;
    private final RpcRdmaLimits limits;

    RandomHeaders(long seed, RpcRdmaLimits limits) {
        this.random = new Random(seed);
        this.limits = limits;
    }

    /** A call valid for a RESPONDER: RDMA_MSG (3 in 4) or RDMA_NOMSG. */
    Expected nextCall() {
        Expected e = new Expected();
        e.xid = random.nextInt();
        e.credits = 1 + random.nextInt(128);
        if (random.nextInt(4) == 0) {
            e.proc = RpcRdma.RDMA_NOMSG;
            addLongCallChunks(e);
        } else {
            e.proc = RpcRdma.RDMA_MSG;
            e.bodyLength = 4 * random.nextInt(65);
            addDataChunks(e, e.bodyLength, 0);
        }
        addWrites(e);
        if (e.proc == RpcRdma.RDMA_NOMSG || random.nextInt(3) == 0) {
            e.reply.addAll(segments(1 + random.nextInt(Math.min(3, limits.maxSegmentsPerChunk()))));
        }
        e.wire = layOut(e);
        return e;
    }

    /** A reply valid for a REQUESTER: RDMA_MSG with a write-list echo, or RDMA_NOMSG in the reply chunk. */
    Expected nextReply() {
        Expected e = new Expected();
        e.xid = random.nextInt();
        e.credits = 1 + random.nextInt(128);
        e.proc = random.nextBoolean() ? RpcRdma.RDMA_MSG : RpcRdma.RDMA_NOMSG;
        e.bodyLength = e.proc == RpcRdma.RDMA_MSG ? 4 * random.nextInt(65) : 0;
        addWrites(e);
        if (e.proc == RpcRdma.RDMA_NOMSG) {
            e.reply.addAll(segments(1 + random.nextInt(Math.min(3, limits.maxSegmentsPerChunk()))));
        }
        e.wire = layOut(e);
        return e;
    }

    /** An RDMA_ERROR (either code) or an RDMA_DONE. */
    Expected nextControl() {
        Expected e = new Expected();
        e.xid = random.nextInt();
        e.credits = random.nextInt(128);
        int pick = random.nextInt(3);
        e.proc = pick == 2 ? RpcRdma.RDMA_DONE : RpcRdma.RDMA_ERROR;
        e.wire = WireBuilder.header(e.xid, RpcRdma.VERSION_1, e.credits, e.proc);
        if (pick == 0) {
            e.errorCode = RpcRdma.ERR_VERS;
            e.wire.word(RpcRdma.ERR_VERS).word(1).word(1);
        } else if (pick == 1) {
            e.errorCode = RpcRdma.ERR_CHUNK;
            e.wire.word(RpcRdma.ERR_CHUNK);
        }
        return e;
    }

    /** The position-zero chunk of a long call, then data chunks inside it. */
    private void addLongCallChunks(Expected e) {
        int callLength = 4 * (1 + random.nextInt(64));
        int pieces = 1 + random.nextInt(Math.min(3, limits.maxReadSegments() - 2));
        List<Segment> call = new ArrayList<>();
        int left = callLength;
        for (int i = 0; i < pieces; i++) {
            int length = i == pieces - 1 ? left : random.nextInt(left + 1);
            left -= length;
            call.add(new Segment(random.nextInt(), length, random.nextLong()));
        }
        e.reads.add(new ReadChunk(0, 0, call));
        addDataChunks(e, callLength, 1);
    }

    /**
     * addDataChunks() - chunks at random inline offsets within {@code inlineLength},
     * never at position zero, never sharing a position.
     */
    private void addDataChunks(Expected e, int inlineLength, int chunksAlready) {
        int room = Math.min(3, limits.maxReadChunks() - chunksAlready);
        int count = inlineLength < 4 || room <= 0 ? 0 : random.nextInt(room + 1);
        int[] offsets = new int[count];
        for (int i = 0; i < count; i++) {
            offsets[i] = 4 * (1 + random.nextInt(inlineLength / 4));
        }
        java.util.Arrays.sort(offsets);
        long consumed = 0;
        for (int i = 0; i < count; i++) {
            List<Segment> segments = segments(1 + random.nextInt(3));
            ReadChunk chunk = new ReadChunk((int) (offsets[i] + consumed), offsets[i], segments);
            e.reads.add(chunk);
            consumed += Xdr.roundUp(chunk.length());
        }
    }

    private void addWrites(Expected e) {
        int chunks = random.nextInt(Math.min(3, limits.maxWriteChunks()) + 1);
        for (int c = 0; c < chunks; c++) {
            e.writes.add(segments(1 + random.nextInt(Math.min(4, limits.maxSegmentsPerChunk()))));
        }
    }

    /** Segments of 1 to 32 KiB each (never empty, so chunk positions stay distinct). */
    private List<Segment> segments(int count) {
        List<Segment> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add(new Segment(random.nextInt(), 1 + random.nextInt(32768), random.nextLong()));
        }
        return list;
    }

    private WireBuilder layOut(Expected e) {
        WireBuilder wire = WireBuilder.header(e.xid, RpcRdma.VERSION_1, e.credits, e.proc);
        int[] next = new int[e.reads.size()];
        int remaining = 0;
        for (ReadChunk chunk : e.reads) {
            remaining += chunk.segments().size();
        }
        int expectedChunk = 0;
        while (remaining > 0) {
            int c = random.nextInt(e.reads.size());
            while (next[c] == e.reads.get(c).segments().size()) {
                c = (c + 1) % e.reads.size();
            }
            if (c < expectedChunk) {
                e.readsInWireOrder = false;
            }
            expectedChunk = c;
            Segment s = e.reads.get(c).segments().get(next[c]++);
            wire.read(e.reads.get(c).position(), s.handle(), s.length(), s.offset());
            remaining--;
        }
        wire.end();
        for (List<Segment> chunk : e.writes) {
            wire.chunk(chunk.size());
            chunk.forEach(s -> wire.segment(s.handle(), s.length(), s.offset()));
        }
        wire.end();
        if (e.reply.isEmpty()) {
            wire.end();
        } else {
            wire.chunk(e.reply.size());
            e.reply.forEach(s -> wire.segment(s.handle(), s.length(), s.offset()));
        }
        return wire.body(e.bodyLength);
    }
}
