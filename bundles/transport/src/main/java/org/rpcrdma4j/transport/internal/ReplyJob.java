package org.rpcrdma4j.transport.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.SegmentList;
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
    /** A read list item on the wire: the "present" word, the position and a segment (RFC 8166 §4.2.1). */
    private static final int READ_ITEM_BYTES = 6 * Integer.BYTES;
    /** {@link #singleKey}: the call's segments name no key, or more than one. */
    private static final long NO_SINGLE_KEY = -1;

    private final ConnectionState connection;
    private final byte[] callHeader;
    private final int xid;
    private final long writeChunkCapacity;
    private final long replyChunkCapacity;
    /** Whether the reply may be a Send With Invalidate of {@link #invalidateKey}. */
    private final boolean invalidates;
    /** The one key all of the call's segments name (meaningful when {@link #invalidates}). */
    private final int invalidateKey;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private ByteBuffer reply;
    private int ddpItemOffset;

    ReplyJob(ConnectionState connection, ByteBuffer receiveBuffer, ParsedHeader header) {
        this.connection = connection;
        this.xid = header.xid();
        this.callHeader = replyRelevantHeader(receiveBuffer, header);
        // Only where the connection allows it: the rest of the calls skip the walk over their segments.
        long key = connection.remoteInvalidationAllowed() ? singleKey(header) : NO_SINGLE_KEY;
        this.invalidates = key != NO_SINGLE_KEY;
        this.invalidateKey = (int) key;
        this.writeChunkCapacity = header.writeList().chunkCount() > 0 ? header.writeList().chunkLength(0) : 0;
        this.replyChunkCapacity = header.hasReplyChunk() ? header.replyChunk().totalLength() : 0;
    }

    /**
     * Linux's rule for Send With Invalidate: every segment of every chunk of the call names one key.
     *
     * @return that key as an unsigned value, or {@link #NO_SINGLE_KEY} when none or several
     */
    private static long singleKey(ParsedHeader header) {
        long key = NO_SINGLE_KEY;
        SegmentList[] lists = {header.readList().segments(), header.writeList().segments(), header.replyChunk()};
        for (SegmentList list : lists) {
            for (int i = 0; i < list.count(); i++) {
                long handle = Integer.toUnsignedLong(list.handle(i));
                if (key != NO_SINGLE_KEY && handle != key) {
                    return NO_SINGLE_KEY;
                }
                key = handle;
            }
        }
        return key;
    }

    /** @return whether the reply may be a Send With Invalidate of {@link #invalidateKey()} */
    boolean invalidates() {
        return invalidates;
    }

    /** @return the key a Send With Invalidate names (meaningful when {@link #invalidates()}) */
    int invalidateKey() {
        return invalidateKey;
    }

    /**
     * The call's header as the reply needs it: the fixed words, an empty read list, then the
     * write list and reply chunk exactly as received. The read list goes (its positions point
     * into a body the copy does not keep, so it would not decode again), and the procedure
     * becomes RDMA_MSG (an RDMA_NOMSG call without its position-zero chunk would not either).
     */
    private static byte[] replyRelevantHeader(ByteBuffer receiveBuffer, ParsedHeader header) {
        int fixed = 4 * Integer.BYTES;
        int readList = header.readList().segments().count() * READ_ITEM_BYTES + Integer.BYTES;
        int rest = header.bodyOffset() - fixed - readList;
        byte[] copy = new byte[fixed + Integer.BYTES + rest];
        receiveBuffer.get(0, copy, 0, fixed);
        ByteBuffer.wrap(copy).putInt(3 * Integer.BYTES, RpcRdma.RDMA_MSG).putInt(fixed, 0);
        receiveBuffer.get(fixed + readList, copy, fixed + Integer.BYTES, rest);
        return copy;
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
