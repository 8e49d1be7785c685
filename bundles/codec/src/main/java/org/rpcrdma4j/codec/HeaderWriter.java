package org.rpcrdma4j.codec;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * HeaderWriter - a reusable, fluent encoder for any RPC-over-RDMA version 1 header (RFC 8166).
 *
 * <p>Calls follow the wire order and the writer adds the list terminators:
 *
 * <pre>
 * int n = writer.wrap(buf, 0, buf.capacity())
 *         .fixedHeader(xid, RpcRdma.VERSION_1, credits, RpcRdma.RDMA_MSG)
 *         .readChunk(position, handle, length, offset)   // 0..n read items
 *         .writeChunk(2).segment(h1, l1, o1).segment(h2, l2, o2)  // 0..n write chunks
 *         .replyChunk(1).segment(h, l, o)                // optional
 *         .finish();                                     // bytes written
 * </pre>
 *
 * RDMA_ERROR continues with {@link #errVers} or {@link #errChunk}; RDMA_DONE
 * has nothing after the fixed header. A requester builds calls with it; the
 * reply side goes through {@link ReplyEncoder}; {@link #encode(ParsedHeader)}
 * writes back a decoded header.
 *
 * <p>Errors: a call out of order or an argument outside its XDR range throws
 * IllegalStateException / IllegalArgumentException; a buffer too small throws
 * {@link BufferOverflowException}. After any exception the content written is
 * undefined and the writer MUST be wrapped again. Nothing is allocated.
 *
 * <p>Threading: confined to one thread.
 */
public final class HeaderWriter {

    private enum State { UNWRAPPED, FIXED, READ_LIST, WRITE_LIST, WRITE_CHUNK, REPLY_SLOT, REPLY_CHUNK, ERROR_BODY, COMPLETE }

    private static final long MAX_UINT = 0xFFFF_FFFFL;

    private final XdrWriter writer = new XdrWriter();
    private State state = State.UNWRAPPED;
    private int segmentsLeft;

    /**
     * wrap() - start a header at {@code offset} of {@code buffer}.
     *
     * @param buffer a writable buffer; its position, limit and order are not changed
     * @param offset absolute index where the header starts
     * @param length bytes available for the header
     * @return this writer
     */
    public HeaderWriter wrap(ByteBuffer buffer, int offset, int length) {
        writer.wrap(buffer, offset, length);
        state = State.FIXED;
        segmentsLeft = 0;
        return this;
    }

    /**
     * fixedHeader() - write xid, vers, credits and proc (RFC 8166 §4.2).
     *
     * @param proc RDMA_MSG, RDMA_NOMSG, RDMA_DONE or RDMA_ERROR
     * @return this writer
     * @throws IllegalArgumentException for RDMA_MSGP (not supported, RFC 8166 §4.6.1) or an unknown proc
     */
    public HeaderWriter fixedHeader(int xid, int vers, int credits, int proc) {
        expect(State.FIXED);
        State next;
        switch (proc) {
            case RpcRdma.RDMA_MSG:
            case RpcRdma.RDMA_NOMSG:
                next = State.READ_LIST;
                break;
            case RpcRdma.RDMA_ERROR:
                next = State.ERROR_BODY;
                break;
            case RpcRdma.RDMA_DONE:
                next = State.COMPLETE;
                break;
            default:
                throw new IllegalArgumentException("cannot encode " + RpcRdma.toString(proc));
        }
        writer.writeInt(xid).writeInt(vers).writeInt(credits).writeInt(proc);
        state = next;
        return this;
    }

    /**
     * readChunk() - append one read-list item (a position and a segment, RFC 8166 §3.4.5).
     *
     * @param position XDR position, a multiple of 4 below 2^32
     * @param length 0 to 2^32 - 1
     * @return this writer
     */
    public HeaderWriter readChunk(long position, int handle, long length, long offset) {
        expect(State.READ_LIST);
        if (position < 0 || position > MAX_UINT || !Xdr.isAligned(position)) {
            throw new IllegalArgumentException("read position must be a multiple of 4 below 2^32: " + position);
        }
        checkLength(length);
        writer.writeInt(RpcRdma.ITEM_PRESENT).writeInt((int) position)
                .writeInt(handle).writeInt((int) length).writeHyper(offset);
        return this;
    }

    /**
     * writeChunk() - open a write chunk of {@code segmentCount} segments; call
     * {@link #segment} that many times next.
     *
     * <p>A count of zero writes an empty chunk, which only a reply may carry
     * (an unused chunk, RFC 8166 §3.4.6); a responder rejects it in a call.
     *
     * @param segmentCount 0 or more
     * @return this writer
     */
    public HeaderWriter writeChunk(int segmentCount) {
        if (state == State.READ_LIST) {
            writer.writeInt(RpcRdma.ITEM_ABSENT);
            state = State.WRITE_LIST;
        }
        expect(State.WRITE_LIST);
        if (segmentCount < 0) {
            throw new IllegalArgumentException("negative segment count: " + segmentCount);
        }
        writer.writeInt(RpcRdma.ITEM_PRESENT).writeInt(segmentCount);
        segmentsLeft = segmentCount;
        state = segmentCount == 0 ? State.WRITE_LIST : State.WRITE_CHUNK;
        return this;
    }

    /**
     * replyChunk() - write the reply chunk header; call {@link #segment}
     * {@code segmentCount} times next. Ends the read and write lists.
     *
     * @param segmentCount at least 1
     * @return this writer
     */
    public HeaderWriter replyChunk(int segmentCount) {
        checkSegmentCount(segmentCount);
        endWriteList();
        writer.writeInt(RpcRdma.ITEM_PRESENT).writeInt(segmentCount);
        segmentsLeft = segmentCount;
        state = State.REPLY_CHUNK;
        return this;
    }

    /**
     * segment() - append one segment to the open write chunk or reply chunk.
     *
     * @param length 0 to 2^32 - 1
     * @return this writer
     */
    public HeaderWriter segment(int handle, long length, long offset) {
        if (state != State.WRITE_CHUNK && state != State.REPLY_CHUNK) {
            throw new IllegalStateException("no open write or reply chunk (state " + state + ")");
        }
        checkLength(length);
        writer.writeInt(handle).writeInt((int) length).writeHyper(offset);
        if (--segmentsLeft == 0) {
            state = state == State.WRITE_CHUNK ? State.WRITE_LIST : State.COMPLETE;
        }
        return this;
    }

    /**
     * errVers() - complete an RDMA_ERROR header with ERR_VERS (RFC 8166 §4.5.1).
     *
     * @param versLow lowest version supported
     * @param versHigh highest version supported
     * @return this writer
     */
    public HeaderWriter errVers(int versLow, int versHigh) {
        expect(State.ERROR_BODY);
        writer.writeInt(RpcRdma.ERR_VERS).writeInt(versLow).writeInt(versHigh);
        state = State.COMPLETE;
        return this;
    }

    /**
     * errChunk() - complete an RDMA_ERROR header with ERR_CHUNK (RFC 8166 §4.5.2).
     *
     * @return this writer
     */
    public HeaderWriter errChunk() {
        expect(State.ERROR_BODY);
        writer.writeInt(RpcRdma.ERR_CHUNK);
        state = State.COMPLETE;
        return this;
    }

    /**
     * finish() - close the lists still open (no reply chunk if none was written).
     *
     * @return bytes of header written since {@link #wrap}
     * @throws IllegalStateException if a chunk still expects segments or an
     *         RDMA_ERROR has no error code
     */
    public int finish() {
        if (state == State.READ_LIST || state == State.WRITE_LIST) {
            endWriteList();
        }
        if (state == State.REPLY_SLOT) {
            writer.writeInt(RpcRdma.ITEM_ABSENT);
            state = State.COMPLETE;
        }
        expect(State.COMPLETE);
        return writer.length();
    }

    /**
     * encode() - write a whole header from a decoded one.
     *
     * <p>Read items are written chunk by chunk in position order, so an
     * unsorted read list comes back sorted: the result decodes to content equal
     * to {@code header} ({@link ParsedHeader#contentEquals}).
     *
     * <p>Assumptions: {@code header} was decoded with status OK; the writer
     * was just wrapped.
     *
     * @return bytes of header written
     */
    public int encode(ParsedHeader header) {
        fixedHeader(header.xid(), header.vers(), header.credits(), header.proc());
        if (header.proc() == RpcRdma.RDMA_ERROR) {
            if (header.errorCode() == RpcRdma.ERR_VERS) {
                errVers(header.versLow(), header.versHigh());
            } else {
                errChunk();
            }
        } else if (header.proc() != RpcRdma.RDMA_DONE) {
            encodeLists(header);
        }
        return finish();
    }

    private void encodeLists(ParsedHeader header) {
        ReadList reads = header.readList();
        for (int c = 0; c < reads.chunkCount(); c++) {
            for (int s = 0; s < reads.segmentCount(c); s++) {
                readChunk(reads.position(c), reads.handle(c, s), reads.length(c, s), reads.offset(c, s));
            }
        }
        WriteList writes = header.writeList();
        for (int c = 0; c < writes.chunkCount(); c++) {
            writeChunk(writes.segmentCount(c));
            for (int s = 0; s < writes.segmentCount(c); s++) {
                segment(writes.handle(c, s), writes.length(c, s), writes.offset(c, s));
            }
        }
        SegmentList reply = header.replyChunk();
        if (!reply.isEmpty()) {
            replyChunk(reply.count());
            for (int s = 0; s < reply.count(); s++) {
                segment(reply.handle(s), reply.length(s), reply.offset(s));
            }
        }
    }

    /** endWriteList() - terminate the read list and the write list, wherever the writer stands. */
    private void endWriteList() {
        if (state == State.READ_LIST) {
            writer.writeInt(RpcRdma.ITEM_ABSENT);
            state = State.WRITE_LIST;
        }
        expect(State.WRITE_LIST);
        writer.writeInt(RpcRdma.ITEM_ABSENT);
        state = State.REPLY_SLOT;
    }

    private void expect(State wanted) {
        if (state != wanted) {
            throw new IllegalStateException("expected state " + wanted + " but was " + state
                    + (segmentsLeft != 0 ? " with " + segmentsLeft + " segments missing" : ""));
        }
    }

    private static void checkSegmentCount(int segmentCount) {
        if (segmentCount < 1) {
            throw new IllegalArgumentException("a chunk needs at least one segment: " + segmentCount);
        }
    }

    private static void checkLength(long length) {
        if (length < 0 || length > MAX_UINT) {
            throw new IllegalArgumentException("segment length must fit 32 unsigned bits: " + length);
        }
    }
}
