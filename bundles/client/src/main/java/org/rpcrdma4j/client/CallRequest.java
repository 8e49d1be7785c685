package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.rpcrdma4j.codec.Xdr;

/**
 * One RPC call to send over RDMA: the complete XDR-encoded RPC call message, which byte ranges of
 * it are DDP items to be pulled by the server through read chunks, which write chunks and reply
 * chunk to offer for the reply, and how to send it.
 *
 * <p>The RPC-over-RDMA xid is the RPC xid, the message's first word; replies are matched by it,
 * so two calls with the same xid MUST NOT be outstanding at once.
 *
 * <p>Ownership: the request holds views of the caller's buffers, not copies. From
 * {@link RpcRdmaClient#call} until its future completes the client reads the message (direct
 * messages are registered in place) and the server writes the sinks: the caller MUST NOT change
 * the message or read the sinks meanwhile. Immutable otherwise; safe to share once built.
 */
public final class CallRequest {
    /** Most write chunks one call may offer. */
    public static final int MAX_WRITE_CHUNKS = 16;

    /** A DDP item: {@code length} bytes at XDR position {@code offset} of the message. */
    record DdpItem(int offset, int length) {
        int paddedEnd() {
            return offset + (int) Xdr.roundUp(length);
        }
    }

    private final ByteBuffer message;
    private final int xid;
    private final List<DdpItem> readChunks;
    private final List<ByteBuffer> writeChunks;
    private final ByteBuffer replyChunk;
    private final CallMode mode;
    private final HeaderMutator mutator;
    private final boolean raw;
    private final boolean expectReply;

    private CallRequest(Builder b) {
        message = b.message;
        xid = b.message.getInt(0);
        readChunks = List.copyOf(b.readChunks);
        writeChunks = List.copyOf(b.writeChunks);
        replyChunk = b.replyChunk;
        mode = b.mode;
        mutator = b.mutator;
        raw = false;
        expectReply = b.expectReply;
    }

    private CallRequest(ByteBuffer bytes, boolean expectReply) {
        message = bytes;
        xid = bytes.remaining() >= Xdr.UNIT_BYTES ? bytes.getInt(0) : 0;
        readChunks = List.of();
        writeChunks = List.of();
        replyChunk = null;
        mode = CallMode.INLINE;
        mutator = null;
        raw = true;
        this.expectReply = expectReply && bytes.remaining() >= Xdr.UNIT_BYTES;
    }

    /**
     * Starts a call.
     *
     * @param message the complete RPC call message from position to limit, xid first; DDP items
     *        in it are XDR-padded as usual (the padding is not sent)
     * @return a builder
     * @throws IllegalArgumentException when the message is shorter than one XDR word
     */
    public static Builder builder(ByteBuffer message) {
        return new Builder(message);
    }

    /**
     * A send of raw bytes, header included, exactly as given: for tests of a server's answers to
     * headers no encoder would produce (a truncated fixed header, RDMA_DONE, an unknown
     * procedure, ...). No memory is registered for it.
     *
     * @param bytes the whole message from position to limit, at most the server's receive size
     * @param expectReply true to wait for a reply matched by the first word (when there is one);
     *        false to complete the call as soon as the send completed
     * @return the request
     */
    public static CallRequest raw(ByteBuffer bytes, boolean expectReply) {
        return new CallRequest(bytes.slice().order(ByteOrder.BIG_ENDIAN), expectReply);
    }

    /** @return the xid replies are matched by */
    public int xid() {
        return xid;
    }

    /** @return the message, index 0 being its first byte (big-endian view) */
    ByteBuffer message() {
        return message;
    }

    /** @return the message length in bytes */
    public int messageLength() {
        return message.remaining();
    }

    List<DdpItem> readChunks() {
        return readChunks;
    }

    List<ByteBuffer> writeChunks() {
        return writeChunks;
    }

    ByteBuffer replyChunk() {
        return replyChunk;
    }

    /** @return how the message is to be sent */
    public CallMode mode() {
        return mode;
    }

    HeaderMutator mutator() {
        return mutator;
    }

    /** @return whether the bytes are sent as given, header included */
    public boolean isRaw() {
        return raw;
    }

    /** @return whether a reply is awaited */
    public boolean expectsReply() {
        return expectReply;
    }

    /** @return the message bytes that travel inline or in the position-zero chunk */
    int inlineStreamLength() {
        int length = message.remaining();
        for (int i = 0; i < readChunks.size(); i++) {
            DdpItem item = readChunks.get(i);
            length -= item.paddedEnd() - item.offset();
        }
        return length;
    }

    /** Builds a {@link CallRequest}; misuse is an {@link IllegalArgumentException}. Not thread-safe. */
    public static final class Builder {
        private final ByteBuffer message;
        private final List<DdpItem> readChunks = new ArrayList<>();
        private final List<ByteBuffer> writeChunks = new ArrayList<>();
        private ByteBuffer replyChunk;
        private CallMode mode = CallMode.AUTO;
        private HeaderMutator mutator;
        private boolean expectReply = true;

        private Builder(ByteBuffer message) {
            Objects.requireNonNull(message, "message");
            if (message.remaining() < Xdr.UNIT_BYTES) {
                throw new IllegalArgumentException("an RPC message starts with its xid: " + message.remaining() + " bytes");
            }
            this.message = message.slice().order(ByteOrder.BIG_ENDIAN);
        }

        /**
         * Sends a DDP item (e.g. NFS WRITE data) through a read chunk instead of inline: the server
         * pulls {@code length} bytes with RDMA READ and inserts them, XDR-padded, at position
         * {@code offset}. Items MUST be added in position order and MUST NOT overlap.
         *
         * @param offset the item's byte offset in the message (its XDR position): a positive
         *        multiple of 4
         * @param length the item's length without padding, positive
         * @return this builder
         */
        public Builder readChunk(int offset, int length) {
            if (offset <= 0 || !Xdr.isAligned(offset)) {
                throw new IllegalArgumentException("read chunk position must be a positive multiple of 4: " + offset);
            }
            if (length <= 0) {
                throw new IllegalArgumentException("read chunk length must be positive: " + length);
            }
            DdpItem item = new DdpItem(offset, length);
            if ((long) offset + Xdr.roundUp(length) > message.remaining()) {
                throw new IllegalArgumentException("read chunk [" + offset + ", +" + length + " padded) beyond a message of "
                        + message.remaining() + " bytes");
            }
            if (!readChunks.isEmpty() && offset < readChunks.get(readChunks.size() - 1).paddedEnd()) {
                throw new IllegalArgumentException("read chunk at " + offset + " overlaps or precedes the one before");
            }
            readChunks.add(item);
            return this;
        }

        /**
         * Offers a write chunk of a fresh direct buffer, for a reply's DDP item (e.g. NFS READ
         * data).
         *
         * @param capacity the most bytes the server may write, positive
         * @return this builder
         */
        public Builder writeChunk(int capacity) {
            return writeChunk(ByteBuffer.allocateDirect(positive("write chunk capacity", capacity)));
        }

        /**
         * Offers a write chunk over the caller's direct buffer, from position to limit.
         *
         * @param sink a direct buffer with at least one byte remaining
         * @return this builder
         * @throws IllegalArgumentException beyond {@link #MAX_WRITE_CHUNKS}
         */
        public Builder writeChunk(ByteBuffer sink) {
            if (writeChunks.size() == MAX_WRITE_CHUNKS) {
                throw new IllegalArgumentException("a call offers at most " + MAX_WRITE_CHUNKS + " write chunks");
            }
            writeChunks.add(sink("write chunk", sink));
            return this;
        }

        /**
         * Offers a reply chunk of a fresh direct buffer, for a reply too large to come inline.
         *
         * @param capacity the largest reply accepted, positive
         * @return this builder
         */
        public Builder replyChunk(int capacity) {
            return replyChunk(ByteBuffer.allocateDirect(positive("reply chunk capacity", capacity)));
        }

        /**
         * Offers a reply chunk over the caller's direct buffer, from position to limit.
         *
         * @param sink a direct buffer with at least one byte remaining
         * @return this builder
         */
        public Builder replyChunk(ByteBuffer sink) {
            replyChunk = sink("reply chunk", sink);
            return this;
        }

        /**
         * @param mode how the message travels; {@link CallMode#AUTO} by default
         * @return this builder
         */
        public Builder mode(CallMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param mutator a hook that corrupts the encoded call before it is sent (tests only)
         * @return this builder
         */
        public Builder headerMutator(HeaderMutator mutator) {
            this.mutator = Objects.requireNonNull(mutator, "mutator");
            return this;
        }

        /**
         * Completes the call as soon as its send completed, without awaiting a reply (for
         * messages a server is expected to drop). A reply that comes anyway is counted as
         * unmatched.
         *
         * @return this builder
         */
        public Builder expectNoReply() {
            this.expectReply = false;
            return this;
        }

        /** @return the request */
        public CallRequest build() {
            return new CallRequest(this);
        }

        private static int positive(String name, int value) {
            if (value <= 0) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }

        private static ByteBuffer sink(String name, ByteBuffer sink) {
            Objects.requireNonNull(sink, name);
            if (!sink.isDirect() || sink.isReadOnly() || !sink.hasRemaining()) {
                throw new IllegalArgumentException(name + " must be a writable direct buffer with bytes remaining: " + sink);
            }
            return sink.slice();
        }
    }
}
