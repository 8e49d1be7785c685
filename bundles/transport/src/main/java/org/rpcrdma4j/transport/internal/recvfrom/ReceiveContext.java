package org.rpcrdma4j.transport.internal.recvfrom;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.transport.internal.read.ReadPlan;
import org.rpcrdma4j.transport.internal.read.ReadingCall;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;

/**
 * ReceiveContext - one pooled receive buffer with everything a call received into it needs: the
 * receive work request, the parsed header, the READ plan and sinks, and the assembled body. It
 * is also the {@link ReceivedCall} handed to the handler, so an inline call allocates nothing.
 *
 * <p>Life cycle ({@link #state}): FREE → POSTED → RECEIVED (completion thread: decoding,
 * reading) → DELIVERED (the handler owns it) → RELEASED (queued back to the completion thread) →
 * FREE. Everything but {@link #release()} and the {@link ReceivedCall} getters runs on the
 * completion thread.
 */
public final class ReceiveContext implements ReceivedCall, ReadingCall {
    /** Where a context is in its life cycle. */
    enum State {
        /** In its pool, not posted. */
        FREE,
        /** Posted as a receive. */
        POSTED,
        /** A message arrived in it: the completion thread decodes it and pulls its read chunks. */
        RECEIVED,
        /** The handler owns it. */
        DELIVERED,
        /** Released by the handler, queued back to the completion thread. */
        RELEASED
    }

    private final int index;
    private final ReceivingConnection owner;
    private final ByteBuffer buffer;
    private final ByteBuffer readOnly;
    private final ByteBuffer inlineView;
    private final ParsedHeader header;
    private final ReceiveWorkRequest request = new ReceiveWorkRequest(1);
    private final AtomicReference<State> state = new AtomicReference<>(State.FREE);
    private final ReadPlan readPlan;
    private final BodyList bodyList = new BodyList();
    private ByteBuffer[] pieces = new ByteBuffer[4];
    private int pieceCount;
    private int bodyLength;
    private boolean withReads;
    private volatile boolean replyDetached;
    /** When the call's receive completion was handled (System.nanoTime()); set on the completion thread. */
    private long receivedAt;

    ReceiveContext(int index, ReceivingConnection owner, MemoryRegion region, int offset, int length, RpcRdmaLimits limits) {
        this.index = index;
        this.owner = owner;
        this.buffer = region.buffer().slice(offset, length);
        this.readOnly = buffer.asReadOnlyBuffer();
        this.inlineView = buffer.asReadOnlyBuffer();
        this.header = new ParsedHeader(limits);
        this.readPlan = new ReadPlan(limits);
        request.id(WorkRequestIds.of(WorkRequestIds.RECEIVE, index)).buffer(region, offset, length);
    }

    int index() {
        return index;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public ParsedHeader header() {
        return header;
    }

    ReceiveWorkRequest request() {
        return request;
    }

    @Override
    public ReadPlan readPlan() {
        return readPlan;
    }

    State state() {
        return state.get();
    }

    /**
     * markReceived() - the receive completion of a message in this context is being handled, at
     * {@code nanos} (System.nanoTime()): where its call's reply latency starts. Completion thread;
     * the hand-off to the handler publishes it.
     */
    void markReceived(long nanos) {
        receivedAt = nanos;
    }

    void setState(State newState) {
        if (newState == State.DELIVERED) {
            replyDetached = false;
        }
        state.set(newState);
    }

    /**
     * presentInline() - make the body the inline part of the receive buffer: one view, no copy,
     * no allocation.
     */
    void presentInline() {
        inlineView.limit(header.bodyOffset() + header.bodyLength()).position(header.bodyOffset());
        clearBody();
        withReads = false;
        addPiece(inlineView);
    }

    /** clearBody() - forget the pieces of the previous call. */
    void clearBody() {
        Arrays.fill(pieces, 0, pieceCount, null);
        pieceCount = 0;
        bodyLength = 0;
    }

    /** @param view the next body piece in XDR order; empty views are skipped */
    void addPiece(ByteBuffer view) {
        if (!view.hasRemaining()) {
            return;
        }
        if (pieceCount == pieces.length) {
            pieces = Arrays.copyOf(pieces, pieces.length * 2);
        }
        pieces[pieceCount++] = view;
        bodyLength += view.remaining();
    }

    /** @return a read-only view of inline receive bytes {@code [from, to)} (absolute indexes) */
    ByteBuffer inlineSlice(int from, int to) {
        return readOnly.slice(from, to - from);
    }

    void markReadAssembled() {
        withReads = true;
    }

    @Override
    public int xid() {
        return header.xid();
    }

    @Override
    public int creditsRequested() {
        return header.credits();
    }

    @Override
    public int procedure() {
        return header.proc();
    }

    @Override
    public RdmaConnection connection() {
        return owner;
    }

    @Override
    public WriteList writeList() {
        return header.writeList();
    }

    @Override
    public SegmentList replyChunk() {
        return header.replyChunk();
    }

    @Override
    public boolean hasReplyChunk() {
        return header.hasReplyChunk();
    }

    @Override
    public boolean hasReadChunks() {
        return withReads;
    }

    @Override
    public List<ByteBuffer> body() {
        return bodyList;
    }

    @Override
    public int bodyLength() {
        return bodyLength;
    }

    @Override
    public ByteBuffer copyBody() {
        ByteBuffer copy = ByteBuffer.allocate(bodyLength);
        copyBodyTo(copy);
        return copy.flip();
    }

    @Override
    public void copyBodyTo(ByteBuffer destination) {
        if (destination.remaining() < bodyLength) {
            throw new BufferOverflowException();
        }
        for (int i = 0; i < pieceCount; i++) {
            ByteBuffer piece = pieces[i];
            destination.put(piece.duplicate());
        }
    }

    @Override
    public PendingReply detachReply() {
        if (state.get() != State.DELIVERED) {
            throw new IllegalStateException("call xid=0x" + Integer.toHexString(header.xid()) + " was already released");
        }
        if (replyDetached) {
            throw new IllegalStateException("the reply of call xid=0x" + Integer.toHexString(header.xid())
                    + " was already detached");
        }
        replyDetached = true;
        return owner.newReply(header, receivedAt);
    }

    @Override
    public boolean runOnReceivingThread(Runnable task, Executor elsewhere) {
        return owner.runOnLoop(task, elsewhere);
    }

    @Override
    public void release() {
        if (!state.compareAndSet(State.DELIVERED, State.RELEASED)) {
            owner.counters().increment(Counter.DOUBLE_RELEASES);
            throw new IllegalStateException("call xid=0x" + Integer.toHexString(header.xid()) + " was already released");
        }
        owner.returnContext(this);
    }

    @Override
    public String toString() {
        return "ReceivedCall[xid=0x" + Integer.toHexString(header.xid()) + ", pieces=" + pieceCount + ", body=" + bodyLength
                + ", state=" + state.get() + "]";
    }

    /** The body as an unmodifiable list over the piece array, allocated once per context. */
    private final class BodyList extends AbstractList<ByteBuffer> implements RandomAccess {
        @Override
        public ByteBuffer get(int i) {
            if (i < 0 || i >= pieceCount) {
                throw new IndexOutOfBoundsException("piece " + i + " of " + pieceCount);
            }
            return pieces[i];
        }

        @Override
        public int size() {
            return pieceCount;
        }
    }
}
