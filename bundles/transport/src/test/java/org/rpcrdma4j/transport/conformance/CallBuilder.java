package org.rpcrdma4j.transport.conformance;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.testing.rawpeer.RawPeer;

/**
 * CallBuilder - describe a call as the RPC message the server must reconstruct, and encode it as
 * a requester would: inline parts, and read chunks (each with its segment split) at the XDR
 * positions where they belong.
 *
 * <p>RDMA_MSG: the inline parts travel after the header and each chunk is read at its position.
 * RDMA_NOMSG: the inline parts form a position-zero read chunk and the other chunks are inserted
 * at their positions within the message. {@link #expectedBody()} is the message the handler must
 * see: inline parts and chunk data in order, each chunk followed by its XDR round-up.
 */
public final class CallBuilder {
    private final int xid;
    private final int proc;
    private final List<Part> parts = new ArrayList<>();
    private final List<int[]> positionZeroSplit = new ArrayList<>();
    private int credits = 32;
    private int[] replyChunk;
    private long replyChunkOffset = 0x1000;
    private final List<long[]> writeChunks = new ArrayList<>();

    private record Part(byte[] data, boolean chunk, int[] segments) {
    }

    private CallBuilder(int xid, int proc) {
        this.xid = xid;
        this.proc = proc;
    }

    /** @return a builder of an RDMA_MSG call */
    public static CallBuilder msg(int xid) {
        return new CallBuilder(xid, RpcRdma.RDMA_MSG);
    }

    /** @return a builder of an RDMA_NOMSG call (position-zero chunk) */
    public static CallBuilder nomsg(int xid) {
        return new CallBuilder(xid, RpcRdma.RDMA_NOMSG);
    }

    /** @return deterministic test bytes: {@code length} bytes seeded by {@code seed} */
    public static byte[] bytes(int length, int seed) {
        byte[] b = new byte[length];
        int x = seed * 0x9E3779B9 + 1;
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) x;
        }
        return b;
    }

    /** @param data inline bytes (a multiple of 4 long, as XDR makes them) @return this */
    public CallBuilder inline(byte[] data) {
        if (!Xdr.isAligned(data.length)) {
            throw new IllegalArgumentException("inline parts are whole XDR units");
        }
        parts.add(new Part(data, false, null));
        return this;
    }

    /**
     * @param data the chunk's data (any length)
     * @param segments how its bytes are split into segments; empty: one segment
     * @return this
     */
    public CallBuilder chunk(byte[] data, int... segments) {
        int[] split = segments.length == 0 ? new int[] {data.length} : segments;
        int sum = 0;
        for (int s : split) {
            sum += s;
        }
        if (sum != data.length) {
            throw new IllegalArgumentException("segments must add up to the chunk length");
        }
        parts.add(new Part(data, true, split));
        return this;
    }

    /** @param split how the position-zero chunk of a NOMSG call is cut into segments @return this */
    public CallBuilder positionZeroSegments(int... split) {
        positionZeroSplit.add(split);
        return this;
    }

    /** @param value credits requested @return this */
    public CallBuilder credits(int value) {
        credits = value;
        return this;
    }

    /** writeChunk() - offer one write chunk of one segment (offset 0x2000). */
    public CallBuilder writeChunk(int handle, int length) {
        return writeChunk(handle, length, 0x2000);
    }

    /** @return this, with a one-segment reply chunk {handle, length} at offset 0x1000 */
    public CallBuilder replyChunk(int handle, int length) {
        replyChunk = new int[] {handle, length};
        replyChunkOffset = 0x1000;
        return this;
    }

    /**
     * writableReplyChunk() - a one-segment reply chunk the server can write: {@code length} bytes of the
     * client's source region (registered for remote write), reserved now.
     *
     * @return this
     */
    public CallBuilder writableReplyChunk(RawPeer client, int length) {
        replyChunk = new int[] {client.memory().rkey(), length};
        replyChunkOffset = client.memory().exposeChunk(new byte[length], 0, length);
        return this;
    }

    /**
     * @param handle the reply chunk's one segment: handle, length and offset (where the server
     *        WRITEs the reply)
     * @return this
     */
    public CallBuilder replyChunk(int handle, int length, long offset) {
        replyChunk = new int[] {handle, length};
        replyChunkOffset = offset;
        return this;
    }

    /** @return this, with a one-segment write chunk {handle, length, offset} appended to the write list */
    public CallBuilder writeChunk(int handle, int length, long offset) {
        writeChunks.add(new long[] {handle, length, offset});
        return this;
    }

    /** @return the RPC message the server must present */
    public byte[] expectedBody() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Part p : parts) {
            out.writeBytes(p.data);
            if (p.chunk) {
                out.writeBytes(new byte[Xdr.padding(p.data.length)]);
            }
        }
        return out.toByteArray();
    }

    private byte[] inlineStream() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Part p : parts) {
            if (!p.chunk) {
                out.writeBytes(p.data);
            }
        }
        return out.toByteArray();
    }

    /**
     * send() - expose the chunks in the client's source region and send the call.
     *
     * @param rkeyDelta added to every advertised rkey (non-zero: a READ that must fail)
     */
    public void send(RawPeer client, int rkeyDelta) throws Exception {
        ByteBuffer header = ByteBuffer.allocate(client.shape().slotBytes());
        HeaderWriter w = new HeaderWriter().wrap(header, 0, header.capacity())
                .fixedHeader(xid, RpcRdma.VERSION_1, credits, proc);
        byte[] stream = inlineStream();
        if (proc == RpcRdma.RDMA_NOMSG) {
            int[] split = positionZeroSplit.isEmpty() ? new int[] {stream.length} : positionZeroSplit.get(0);
            writeSegments(w, client, 0, stream, split, rkeyDelta);
        }
        long position = 0;
        for (Part p : parts) {
            if (p.chunk) {
                writeSegments(w, client, position, p.data, p.segments, rkeyDelta);
                position += Xdr.roundUp(p.data.length);
            } else {
                position += p.data.length;
            }
        }
        for (long[] chunk : writeChunks) {
            w.writeChunk(1).segment((int) chunk[0], chunk[1], chunk[2]);
        }
        if (replyChunk != null) {
            w.replyChunk(1).segment(replyChunk[0], replyChunk[1], replyChunkOffset);
        }
        int n = w.finish();
        byte[] h = new byte[n];
        header.get(0, h);
        client.send(h, proc == RpcRdma.RDMA_MSG ? stream : new byte[0]);
    }

    private static void writeSegments(HeaderWriter w, RawPeer client, long position, byte[] data, int[] split, int rkeyDelta) {
        int at = 0;
        for (int length : split) {
            long address = client.memory().exposeChunk(data, at, length);
            w.readChunk(position, client.memory().rkey() + rkeyDelta, length, address);
            at += length;
        }
    }

    /** @return the xid */
    public int xid() {
        return xid;
    }
}
