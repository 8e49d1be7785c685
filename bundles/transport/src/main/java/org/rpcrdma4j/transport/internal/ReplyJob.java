package org.rpcrdma4j.transport.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * ReplyJob - a {@link PendingReply}: a copy of the call's transport header (to build the reply's
 * header from this call's chunks, never another's), and once sent, the RPC reply and where its
 * DDP-eligible item lies. The RPC layer owns it until {@link #send}; then the connection's
 * {@link ReplySender} does, on the completion thread.
 *
 * <p>Threading: {@link #send} and {@link #abandon} from any thread, once between them; the rest
 * on the completion thread.
 */
final class ReplyJob implements PendingReply {
    private static final int OPEN = 0;
    private static final int SENT = 1;
    private static final int ABANDONED = 2;

    private final ConnectionState connection;
    private final byte[] callHeader;
    private final int xid;
    private final long writeChunkCapacity;
    private final long replyChunkCapacity;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private ByteBuffer reply;
    private int ddpItemOffset;

    ReplyJob(ConnectionState connection, ByteBuffer receiveBuffer, ParsedHeader header) {
        this.connection = connection;
        this.xid = header.xid();
        this.callHeader = new byte[header.bodyOffset()];
        receiveBuffer.get(0, callHeader);
        this.writeChunkCapacity = header.writeList().chunkCount() > 0 ? header.writeList().chunkLength(0) : 0;
        this.replyChunkCapacity = header.hasReplyChunk() ? header.replyChunk().totalLength() : 0;
    }

    @Override
    public int xid() {
        return xid;
    }

    @Override
    public RdmaConnection connection() {
        return connection;
    }

    @Override
    public long writeChunkCapacity() {
        return writeChunkCapacity;
    }

    @Override
    public long replyChunkCapacity() {
        return replyChunkCapacity;
    }

    @Override
    public void send(ByteBuffer rpcReply, int ddpItemOffset) {
        checkItem(rpcReply, ddpItemOffset);
        if (!state.compareAndSet(OPEN, SENT)) {
            throw new IllegalStateException(this + " was already finished");
        }
        this.reply = rpcReply;
        this.ddpItemOffset = ddpItemOffset;
        connection.submitReply(this);
    }

    @Override
    public void abandon() {
        if (!state.compareAndSet(OPEN, ABANDONED)) {
            throw new IllegalStateException(this + " was already finished");
        }
        connection.counters().increment(Counter.REPLIES_ABANDONED);
    }

    /** The item's length word must lie in the message, 4-aligned, with the item and its round-up after it. */
    private static void checkItem(ByteBuffer rpcReply, int offset) {
        if (offset == -1) {
            return;
        }
        int length = rpcReply.remaining();
        if (offset < 0 || (offset & 3) != 0 || offset > length - 4) {
            throw new IllegalArgumentException("DDP item offset " + offset + " is not a 4-aligned word of a "
                    + length + "-byte reply");
        }
        int itemLength = rpcReply.getInt(rpcReply.position() + offset);
        if (itemLength < 0 || (long) offset + 4 + roundUp(itemLength) > length) {
            throw new IllegalArgumentException("DDP item of " + Integer.toUnsignedString(itemLength) + " bytes at offset "
                    + offset + " overruns the " + length + "-byte reply");
        }
    }

    static long roundUp(int length) {
        return (length + 3L) & ~3L;
    }

    /** @return the call's transport header bytes, decoded again when the reply is built */
    byte[] callHeader() {
        return callHeader;
    }

    ByteBuffer reply() {
        return reply;
    }

    int ddpItemOffset() {
        return ddpItemOffset;
    }

    /** forgetReply() - drop the reference to the RPC reply once it is copied out or dropped. */
    void forgetReply() {
        reply = null;
    }

    @Override
    public String toString() {
        return "PendingReply[xid=0x" + Integer.toHexString(xid) + " on " + connection + "]";
    }
}
