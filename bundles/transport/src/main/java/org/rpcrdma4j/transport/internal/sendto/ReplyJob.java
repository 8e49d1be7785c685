package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.internal.common.BoundedPool;
import org.rpcrdma4j.verbs.MemoryRegion;

/**
 * ReplyJob - a {@link PendingReply}, and the pooled per-call context of a reply: the chunk lists
 * the client offered for it, copied from the header parsed at receive time (so the reply is
 * built from this call's chunks, never another's, without a copy of the header's bytes or a
 * second decode), the memory a reply may be encoded into ({@link #replyBuffer()}), and once
 * sent, the RPC reply and where its DDP-eligible item lies.
 *
 * <p>A large reply may be encoded straight into an extent of the connection's reply staging
 * ({@link #largerReplyBuffer}); the job holds that extent until the reply is posted from it (the
 * SEND's context takes it over) or recycled.
 *
 * <p>Life cycle ({@link #state}): FREE (in its connection's {@link BoundedPool}) → OPEN ({@link #open},
 * when the call's reply is detached; the RPC layer owns it) → SENT ({@link #send}; the
 * connection's {@link ReplySender} owns it) → FREE once {@link #recycle()}d: posted, refused
 * with ERR_CHUNK, or dropped. OPEN → ABANDONED ({@link #abandon}) → FREE at once.
 *
 * <p>Threading: {@link #send} and {@link #abandon} from any thread, once between them; the
 * reply sender's accessors under the connection's send lock.
 */
public final class ReplyJob implements PendingReply {
    /** Where a context is in its life cycle. */
    private enum State {
        /** In its pool. */
        FREE,
        /** The call's reply is detached: the RPC layer owns it. */
        OPEN,
        /** The reply was sent: the connection's reply sender owns it. */
        SENT,
        /** The RPC layer gave up on the reply. */
        ABANDONED
    }

    /**
     * The smallest reply {@link #largerReplyBuffer} encodes straight into reply staging. Below it
     * the copy into staging at the post costs less than what an extent taken early costs: a view
     * of it per reply (an allocation) and staging held from encoding rather than from the post. A
     * 4 KiB NFS READ's copy is a few hundred vector moves; sparing a 1 MiB one's made the JMH 1 MiB
     * READ over RDMA 1.40x as fast (benchmarks/results, session 32).
     */
    static final int ENCODE_IN_STAGING_MIN = 32 * 1024;

    /**
     * Room a pending reply's own memory ({@link #replyBuffer}) has beyond the connection's inline
     * size: one page-sized DDP item. A 4 KiB NFS READ's reply, its data bound for the client's
     * write chunk and the rest inline, is then encoded where it stays instead of borrowing a
     * buffer of {@link LargeReplyBuffers} per READ (a synchronized take and give and the pool's
     * accounting: 3 % of the workers' CPU samples in the lab's 4 KiB random reads, run
     * 2026-12-07-1718). It costs 4 KiB of heap per reply context in use: made on first use, and
     * the contexts are reused last in, first out.
     */
    static final int PAGE_ITEM_ROOM = 4096;

    /** {@link #singleKey}: the call's segments name no key, or more than one. */
    private static final long NO_SINGLE_KEY = -1;
    /** {@link #sameKey}: two segments so far named different keys. */
    private static final long MIXED_KEYS = -2;

    private final ReplyConnection connection;
    /** The pool this context returns to; null for one made beyond the pool's bound. */
    private final BoundedPool<ReplyJob> pool;
    /** The call's reply-relevant header: fixed words, no read list, its write list and reply chunk. */
    private final ParsedHeader call;
    private final AtomicReference<State> state = new AtomicReference<>(State.FREE);
    private int xid;
    /** When the call's receive completion was handled (System.nanoTime()), for its reply latency. */
    private long receivedAt;
    private long writeChunkCapacity;
    private long replyChunkCapacity;
    /** Whether the reply may be a Send With Invalidate of {@link #invalidateKey}. */
    private boolean invalidates;
    /** The one key all of the call's segments name (meaningful when {@link #invalidates}). */
    private int invalidateKey;
    private ByteBuffer reply;
    private int ddpItemOffset;
    /** Made on first use, then reused by every reply this context carries. */
    private ByteBuffer replyBuffer;
    /**
     * The extent of the connection's reply staging this reply is encoded into
     * ({@link #largerReplyBuffer}: its offset in the slab), or -1. Held until the reply's SEND
     * completes (the reply sender hands it to the SEND's context, {@link #stagingPosted}), or
     * until the reply is recycled without it.
     */
    private int stagedOffset = -1;
    /**
     * The view of that extent handed to the RPC layer (as long as the extent: its capacity is the
     * length allocated), or null: the reply lies in staging when it is this buffer.
     */
    private ByteBuffer stagedView;
    /** Large buffers borrowed for this reply ({@link #largerReplyBuffer}), given back when it is recycled. */
    private final ByteBuffer[] borrowed = new ByteBuffer[2];
    private int borrowedCount;

    public ReplyJob(ReplyConnection connection, BoundedPool<ReplyJob> pool, RpcRdmaLimits limits) {
        this.connection = connection;
        this.pool = pool;
        this.call = new ParsedHeader(limits);
    }

    /**
     * open() - take up the reply to the call {@code header} describes (decoded OK): its xid and
     * chunk lists are copied here, so the call's receive context may be reused before the reply
     * is sent. Allocates nothing.
     *
     * @param receivedAt when the call's receive completion was handled (System.nanoTime()): the
     *        reply sender records the time from then to the post of the reply's SEND
     */
    public ReplyJob open(ParsedHeader header, long receivedAt) {
        if (!state.compareAndSet(State.FREE, State.OPEN)) {
            throw new IllegalStateException(this + " taken from its pool while in use");
        }
        call.copyReplyChunksFrom(header);
        xid = header.xid();
        this.receivedAt = receivedAt;
        // Only where the connection allows it: the rest of the calls skip the walk over their segments.
        long key = connection.remoteInvalidationAllowed() ? singleKey(header) : NO_SINGLE_KEY;
        invalidates = key != NO_SINGLE_KEY;
        invalidateKey = (int) key;
        writeChunkCapacity = header.writeList().chunkCount() > 0 ? header.writeList().chunkLength(0) : 0;
        replyChunkCapacity = header.hasReplyChunk() ? header.replyChunk().totalLength() : 0;
        reply = null;
        ddpItemOffset = -1;
        return this;
    }

    /**
     * Linux's rule for Send With Invalidate: every segment of every chunk of the call names one key.
     *
     * @return that key as an unsigned value, or {@link #NO_SINGLE_KEY} when none or several
     */
    private static long singleKey(ParsedHeader header) {
        long key = sameKey(header.readList().segments(), NO_SINGLE_KEY);
        key = sameKey(header.writeList().segments(), key);
        key = sameKey(header.replyChunk(), key);
        return key == MIXED_KEYS ? NO_SINGLE_KEY : key;
    }

    /** @return the one key of {@code key} (the lists before) and {@code list}, or {@link #MIXED_KEYS} */
    private static long sameKey(SegmentList list, long key) {
        long found = key;
        for (int i = 0; i < list.count() && found != MIXED_KEYS; i++) {
            long handle = Integer.toUnsignedLong(list.handle(i));
            found = found == NO_SINGLE_KEY || handle == found ? handle : MIXED_KEYS;
        }
        return found;
    }

    /** @return whether the reply may be a Send With Invalidate of {@link #invalidateKey()} */
    boolean invalidates() {
        return invalidates;
    }

    /** @return the key a Send With Invalidate names (meaningful when {@link #invalidates()}) */
    int invalidateKey() {
        return invalidateKey;
    }

    /** @return the call's header as the reply needs it (fixed words, write list, reply chunk) */
    ParsedHeader call() {
        return call;
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
        if (!state.compareAndSet(State.OPEN, State.SENT)) {
            throw new IllegalStateException(this + " was already finished");
        }
        this.reply = rpcReply;
        this.ddpItemOffset = ddpItemOffset;
        connection.submitReply(this);
    }

    @Override
    public void abandon() {
        if (!state.compareAndSet(State.OPEN, State.ABANDONED)) {
            throw new IllegalStateException(this + " was already finished");
        }
        connection.counters().increment(Counter.REPLIES_ABANDONED);
        recycle();
    }

    /** The item's length word must lie in the message, 4-aligned, with the item and its round-up after it. */
    private static void checkItem(ByteBuffer rpcReply, int offset) {
        if (offset == -1) {
            return;
        }
        int length = rpcReply.remaining();
        if (offset < 0 || !Xdr.isAligned(offset) || offset > length - Xdr.UNIT_BYTES) {
            throw new IllegalArgumentException("DDP item offset " + offset + " is not a 4-aligned word of a "
                    + length + "-byte reply");
        }
        int itemLength = rpcReply.getInt(rpcReply.position() + offset);
        if (itemLength < 0 || (long) offset + 4 + Xdr.roundUp(itemLength) > length) {
            throw new IllegalArgumentException("DDP item of " + Integer.toUnsignedString(itemLength) + " bytes at offset "
                    + offset + " overruns the " + length + "-byte reply");
        }
    }

    ByteBuffer reply() {
        return reply;
    }

    /** @return when the call's receive completion was handled (System.nanoTime()) */
    long receivedAt() {
        return receivedAt;
    }

    int ddpItemOffset() {
        return ddpItemOffset;
    }

    @Override
    public ByteBuffer replyBuffer() {
        if (state.get() != State.OPEN) {
            throw new IllegalStateException(this + " was already finished");
        }
        ByteBuffer buffer = replyBuffer;
        if (buffer == null) {
            buffer = ByteBuffer.allocate(connection.replyBufferSize() + PAGE_ITEM_ROOM);
            replyBuffer = buffer;
        }
        return buffer.clear();
    }

    /**
     * largerReplyBuffer() - for a reply of at least {@link #ENCODE_IN_STAGING_MIN} bytes, the first
     * buffer is an extent of the connection's reply staging when one can be had at once: the
     * registered memory the reply's RDMA WRITEs read, so a 1 MiB NFS READ's data is not copied a
     * second time at the post ({@link ReplySender}). Otherwise, and for later ones, a buffer of
     * the transport's {@link LargeReplyBuffers}.
     */
    @Override
    public ByteBuffer largerReplyBuffer(int capacity) {
        if (state.get() != State.OPEN) {
            throw new IllegalStateException(this + " was already finished");
        }
        if (stagedView == null && capacity >= ENCODE_IN_STAGING_MIN) {
            ByteBuffer staged = stage(capacity);
            if (staged != null) {
                return staged;
            }
        }
        if (borrowedCount == borrowed.length) {
            return null;
        }
        ByteBuffer buffer = connection.largeReplyBuffers().take(capacity, connection.counters());
        if (buffer != null) {
            borrowed[borrowedCount++] = buffer;
        }
        return buffer;
    }

    /**
     * stage() - an extent of the connection's reply staging for the reply to be encoded into, if
     * one can be had now (within the connection's share, from a free extent of the registered
     * slab: the first reply that needs staging registers it at its post); else null, and the
     * reply is encoded into ordinary memory and copied into staging when posted, as any other.
     */
    private ByteBuffer stage(int capacity) {
        ReplyStaging staging = connection.replyStaging();
        if (staging == null || capacity > staging.capacity()) {
            return null;
        }
        int at = staging.allocateNow(capacity);
        if (at < 0) {
            return null;
        }
        // Registered while any extent is allocated (StagingSlab.close waits for none).
        MemoryRegion region = staging.registeredRegion();
        stagedOffset = at;
        stagedView = region.buffer().slice(at, capacity);
        return stagedView;
    }

    /**
     * @return the offset in the staging slab of the extent the reply was encoded into, or -1 when
     *         the reply sent is not that buffer (it was encoded elsewhere, or holds no extent)
     */
    int stagedReplyOffset() {
        return holdsStaging() && reply == stagedView ? stagedOffset : -1;
    }

    /** @return whether this reply holds a staging extent (whether or not the reply lies in it) */
    boolean holdsStaging() {
        return stagedOffset >= 0;
    }

    /** @return the length the staging extent was allocated with */
    int stagedLength() {
        return stagedView.capacity();
    }

    /**
     * stagingPosted() - the reply was posted from its staging extent: the SEND's context owns the
     * extent now (freed when the SEND completes), not this reply.
     */
    void stagingPosted() {
        stagedOffset = -1;
        stagedView = null;
    }

    /**
     * moveOutOfStaging() - the reply cannot be posted from its extent as it lies (a reply chunk
     * and a DDP item, which must leave the message: the rare case), or it was not sent in it: the
     * reply is copied into memory of its own when it may lie in staging (it is the extent, or
     * direct memory that may be a view of it: only a heap buffer certainly is not), and the extent
     * is given back, so a reply that waits for staging at its post never holds any.
     */
    void moveOutOfStaging() {
        if (holdsStaging() && reply.isDirect()) {
            ByteBuffer own = ByteBuffer.allocate(reply.remaining());
            own.put(0, reply, reply.position(), reply.remaining());
            reply = own;
        }
        releaseStaging();
    }

    private void releaseStaging() {
        if (holdsStaging()) {
            connection.replyStaging().free(stagedOffset, stagedLength());
        }
        stagedOffset = -1;
        stagedView = null;
    }

    /**
     * recycle() - the reply is finished (posted: its bytes are in registered memory; refused;
     * dropped; or abandoned): drop the reference to the RPC reply, give back the large buffers it
     * borrowed (nothing reads them any more), and go back to the pool.
     */
    public void recycle() {
        reply = null;
        releaseStaging();
        for (int i = 0; i < borrowedCount; i++) {
            connection.largeReplyBuffers().give(borrowed[i]);
            borrowed[i] = null;
        }
        borrowedCount = 0;
        State was = state.getAndSet(State.FREE);
        if (was == State.FREE || was == State.OPEN) {
            throw new IllegalStateException(this + " recycled while " + (was == State.FREE ? "free" : "open"));
        }
        if (pool != null) {
            pool.release(this);
        }
    }

    @Override
    public String toString() {
        return "PendingReply[xid=0x" + Integer.toHexString(xid) + " on " + connection + "]";
    }
}
