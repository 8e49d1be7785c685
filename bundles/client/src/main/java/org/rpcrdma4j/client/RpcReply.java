package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalInt;

import org.rpcrdma4j.codec.RpcRdma;

/**
 * A reply to one call: the RPC reply message (from the receive buffer, or from the reply chunk
 * for RDMA_NOMSG) and the data the server placed in the offered write chunks, with the lengths it
 * reported.
 *
 * <p>Immutable; the buffers are read-only views owned by the reply (the inline body is a copy;
 * chunk data are views of the sinks the call offered). Safe to share between threads.
 */
public final class RpcReply {
    private final int xid;
    private final int proc;
    private final int credits;
    private final ByteBuffer body;
    private final List<ByteBuffer> writeChunks;
    private final int invalidatedKey;
    private final boolean invalidated;

    RpcReply(int xid, int proc, int credits, ByteBuffer body, List<ByteBuffer> writeChunks, boolean invalidated, int invalidatedKey) {
        this.xid = xid;
        this.proc = proc;
        this.credits = credits;
        this.body = body.asReadOnlyBuffer();
        this.writeChunks = readOnly(writeChunks);
        this.invalidated = invalidated;
        this.invalidatedKey = invalidatedKey;
    }

    /** @return read-only views of {@code buffers}, unmodifiable; no allocation when there are none */
    private static List<ByteBuffer> readOnly(List<ByteBuffer> buffers) {
        if (buffers.isEmpty()) {
            return List.of();
        }
        ByteBuffer[] views = new ByteBuffer[buffers.size()];
        for (int i = 0; i < views.length; i++) {
            views[i] = buffers.get(i).asReadOnlyBuffer();
        }
        return List.of(views);
    }

    /** @return the xid */
    public int xid() {
        return xid;
    }

    /** @return {@link RpcRdma#RDMA_MSG} (body inline) or {@link RpcRdma#RDMA_NOMSG} (body in the reply chunk) */
    public int proc() {
        return proc;
    }

    /** @return whether the body came through the reply chunk */
    public boolean viaReplyChunk() {
        return proc == RpcRdma.RDMA_NOMSG;
    }

    /** @return the credits the reply granted */
    public int credits() {
        return credits;
    }

    /** @return the RPC reply message (xid first), position 0, a fresh read-only view per call */
    public ByteBuffer body() {
        return body.duplicate();
    }

    /** @return how many write chunks the server reported (at most the number offered) */
    public int writeChunkCount() {
        return writeChunks.size();
    }

    /**
     * @param chunk a write chunk index below {@link #writeChunkCount()}
     * @return the bytes the server wrote into that chunk, as long as it reported, position 0
     */
    public ByteBuffer writeChunk(int chunk) {
        return writeChunks.get(chunk).duplicate();
    }

    /** @return the key the server invalidated with Send With Invalidate, if it did */
    public OptionalInt invalidatedKey() {
        return invalidated ? OptionalInt.of(invalidatedKey) : OptionalInt.empty();
    }

    @Override
    public String toString() {
        return "RpcReply[xid=0x" + Integer.toHexString(xid) + " " + RpcRdma.toString(proc) + " credits=" + credits + " body="
                + body.remaining() + " writeChunks=" + writeChunks.stream().map(b -> b.remaining()).toList() + "]";
    }
}
