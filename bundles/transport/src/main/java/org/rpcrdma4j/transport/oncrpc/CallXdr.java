package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.ByteBufferWrapper;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.MemoryProbe;
import org.glassfish.grizzly.monitoring.MonitoringConfig;
import org.rpcrdma4j.server.ClaimCheckedXdr;
import org.rpcrdma4j.transport.PendingReply;

/**
 * CallXdr - the {@link Xdr} a call received over RDMA is decoded from and its reply encoded into.
 *
 * <p>oncrpc4j decodes a call from its {@code Xdr} and then encodes the reply into the same one
 * ({@code RpcCall.acceptedReply}: {@code beginEncoding()} on the call's stream). Here the call's
 * buffer is the receive buffer or the READ sinks, read in place and read-only (a read chunk's
 * XDR round-up is a shared zero buffer): so encoding starts in the memory of the call's
 * {@link PendingReply} (a pooled per-call context of the connection), taken when the reply
 * begins, and the call's memory is never written. What the call's arguments claim is checked
 * against the message before the program's decoding allocates it ({@link ClaimCheckedXdr}).
 */
final class CallXdr extends ClaimCheckedXdr {
    /**
     * Room for everything of a reply but its DDP item when its memory is sized up front: the RPC
     * reply header, and the results around the item (an NFSv3 READ's status, post_op_attr, count
     * and eof are 108 bytes; an NFSv4.1 SEQUENCE, PUTFH, READ COMPOUND's about 150). A reply that
     * needs more grows as any other.
     */
    static final int REPLY_HEADER_ALLOWANCE = 1024;
    private PendingReply reply;
    /** The call's buffer, and where the call message starts in it. */
    private Buffer callBuffer;
    private int start;
    /** The DDP item the reply will carry, in bytes, as known before it is encoded; 0 when none is. */
    private int replyItemBytes;
    /** Whether this call's reply memory was taken (its first reply only). */
    private boolean replyTaken;
    /** The pending reply's memory while the reply is encoded into it, else null. */
    private ByteBuffer replyMemory;
    /** The last reply memory seen, and its Grizzly view: reused while the pairing holds. */
    private ByteBuffer viewedMemory;
    private Buffer replyView;
    /** The large buffer the reply grew into ({@link PendingReply#largerReplyBuffer}), and its view; else null. */
    private ByteBuffer grownMemory;
    private Buffer grownView;
    /**
     * The Grizzly views of borrowed buffers: two, pointed at whichever buffer the pool lends, so
     * a reply that grows from one borrowed buffer into another never reads its old view through
     * the new one.
     */
    private final BorrowedView[] borrowedViews = {new BorrowedView(), new BorrowedView()};

    /** A stream for one {@link CallTransport}, taken up for each call with {@link #begin}. */
    CallXdr() {
        this(new ReplyGrowth());
    }

    private CallXdr(ReplyGrowth growth) {
        super(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, new byte[0]), growth);
        growth.stream = this;
    }

    /**
     * begin() - take this stream up for a call.
     *
     * @param call the call message, read in place (read-only), up to its limit
     * @param start where the message starts in {@code call}
     * @param reply the call's pending reply, whose {@link PendingReply#replyBuffer()} the reply
     *        is encoded into
     * @param replyItemBytes the bytes of the DDP item the reply will carry (an NFS READ's data,
     *        bounded by the caller), 0 when none is known: with its header the reply's memory is
     *        taken large enough for it up front ({@link #beginEncoding})
     * @return this stream
     */
    CallXdr begin(Buffer call, int start, PendingReply reply, int replyItemBytes) {
        call.order(ByteOrder.BIG_ENDIAN);
        _buffer = call;
        this.callBuffer = call;
        this.start = start;
        this.reply = reply;
        this.replyItemBytes = replyItemBytes;
        replyTaken = false;
        replyMemory = null;
        grownMemory = null;
        grownView = null;
        return this;
    }

    /** reset() - the call is done: forget it (the reply view is kept for the next call). */
    void reset() {
        _buffer = null;
        callBuffer = null;
        reply = null;
        replyMemory = null;
        grownMemory = null;
        grownView = null;
    }

    /** beginDecoding() - decode from the start of the call message (not of its buffer). */
    @Override
    public void beginDecoding() {
        super.beginDecoding();
        if (_buffer == callBuffer) {
            _buffer.position(start);
        }
    }

    /** endDecoding() - back to the start of the call message. */
    @Override
    public void endDecoding() {
        super.endDecoding();
        if (_buffer == callBuffer) {
            _buffer.position(start);
        }
    }

    /**
     * beginEncoding() - encode into the pending reply's own memory (reused by the connection's
     * later replies, so the reply costs no buffer), or, when the reply will carry a DDP item that
     * does not fit there with its header, straight into a larger buffer the pending reply borrows
     * ({@link #takeLargerUpFront}); a reply that outgrows its memory all the same continues in a
     * larger one ({@link #grow}).
     */
    @Override
    public void beginEncoding() {
        if (!replyTaken) {
            // The first reply only: a second one (a program that answers twice) must not touch
            // memory that may already carry another call's reply; it fails when sent.
            replyTaken = true;
            ByteBuffer memory = reply.replyBuffer();
            if (replyItemBytes > memory.capacity() - REPLY_HEADER_ALLOWANCE && takeLargerUpFront()) {
                super.beginEncoding();
                return;
            }
            if (memory != viewedMemory) {
                viewedMemory = memory;
                replyView = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, memory.array(), memory.arrayOffset(),
                        memory.capacity());
            }
            replyMemory = memory;
            _buffer = replyView;
        } else {
            replyMemory = null;
            _buffer = MemoryManager.DEFAULT_MEMORY_MANAGER.allocate(INITIAL_XDR_SIZE);
        }
        super.beginEncoding();
    }

    /**
     * takeLargerUpFront() - borrow the memory for a reply with a DDP item before encoding it: an
     * NFS READ reply (its header, attributes and data) no longer starts in the pending reply's
     * inline-sized memory and grows into a larger buffer at its data (oncrpc4j's
     * {@code Xdr.ensureCapacity}, then {@link #grow}: a copy of the header, two small objects and
     * a second buffer view per READ), it is encoded where it ends up.
     *
     * @return false when the transport lends none that large: encoding starts in the pending
     *         reply's memory, and grows as it is encoded
     */
    private boolean takeLargerUpFront() {
        ByteBuffer larger = reply.largerReplyBuffer(REPLY_HEADER_ALLOWANCE + replyItemBytes);
        if (larger == null) {
            return false;
        }
        grownMemory = larger;
        grownView = viewOf(larger);
        replyMemory = null;
        _buffer = grownView;
        return true;
    }

    /**
     * encoded() - the encoded reply message: a view of the pending reply's memory when it still
     * holds the reply (no allocation), else of the buffer oncrpc4j grew it into.
     */
    ByteBuffer encoded() {
        Buffer buffer = _buffer;
        if (buffer == replyView && replyMemory != null) {
            return replyMemory.limit(buffer.limit()).position(buffer.position());
        }
        if (buffer == grownView && grownMemory != null) {
            return grownMemory.limit(buffer.limit()).position(buffer.position());
        }
        return buffer.toByteBuffer();
    }

    /**
     * grow() - the reply outgrew the pending reply's memory: continue in a larger buffer the
     * pending reply borrows from the transport (no allocation in steady state), with what was
     * encoded so far copied; null when there is none (oncrpc4j's heap growth then).
     */
    Buffer grow(Buffer old, int newSize) {
        if (reply == null || !replyTaken || (old != replyView && old != grownView)) {
            return null;
        }
        ByteBuffer larger = reply.largerReplyBuffer(newSize);
        if (larger == null) {
            return null;
        }
        int encoded = old.position();
        larger.put(old.toByteBuffer(0, encoded));
        grownMemory = larger;
        grownView = viewOf(larger);
        replyMemory = null;
        return grownView;
    }

    /**
     * viewOf() - a Grizzly view of a borrowed buffer, one of this stream's own (it keeps no state
     * of its own: position and limit are the buffer's, which the pool cleared), never the view the
     * stream encodes into now. Grizzly's {@code Buffers.wrap} made one per reply, from its thread
     * cache: on an RPC worker a ThreadLocal miss, then an allocation (the lab's recording of 4 KiB
     * random reads, 2026-12-07-0357: 7 of an NFS worker's 150 samples).
     */
    private Buffer viewOf(ByteBuffer larger) {
        BorrowedView view = borrowedViews[0] != _buffer ? borrowedViews[0] : borrowedViews[1];
        return view.pointAt(larger);
    }

    /** BorrowedView - a Grizzly view that is pointed at one borrowed buffer after another. */
    private static final class BorrowedView extends ByteBufferWrapper {
        BorrowedView pointAt(ByteBuffer buffer) {
            visible = buffer;
            mark = -1;
            return this;
        }
    }

    /**
     * ReplyGrowth - the memory manager oncrpc4j's {@link Xdr} grows a stream through: a reply
     * that outgrows its pending reply's memory (a 1 MiB NFS READ) moves into a buffer borrowed
     * for it ({@link #grow}) instead of a fresh heap buffer per reply; anything else is the
     * default manager's.
     */
    static final class ReplyGrowth implements MemoryManager<Buffer> {
        @SuppressWarnings("unchecked")
        private static final MemoryManager<Buffer> DEFAULT = MemoryManager.DEFAULT_MEMORY_MANAGER;
        private CallXdr stream;

        @Override
        public Buffer allocate(int size) {
            return DEFAULT.allocate(size);
        }

        @Override
        public Buffer allocateAtLeast(int size) {
            return DEFAULT.allocateAtLeast(size);
        }

        @Override
        public Buffer reallocate(Buffer old, int newSize) {
            Buffer grown = stream.grow(old, newSize);
            if (grown != null) {
                return grown;
            }
            // As the default manager would, for any kind of buffer: copy what was encoded.
            int encoded = old.position();
            Buffer fresh = DEFAULT.allocate(newSize);
            fresh.put(old, 0, encoded);
            return fresh;
        }

        @Override
        public void release(Buffer buffer) {
            DEFAULT.release(buffer);
        }

        @Override
        public boolean willAllocateDirect(int size) {
            return DEFAULT.willAllocateDirect(size);
        }

        @Override
        public MonitoringConfig<MemoryProbe> getMonitoringConfig() {
            return DEFAULT.getMonitoringConfig();
        }
    }
}
