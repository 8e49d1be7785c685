package org.rpcrdma4j.codec;

/**
 * ParsedHeader - a reusable, pre-sized holder for one decoded RPC-over-RDMA transport header.
 *
 * <p>Built once per receive context from {@link RpcRdmaLimits}; every array it
 * owns is allocated by the constructor and reused by each
 * {@link HeaderDecoder#decode} into it, so decoding allocates nothing.
 *
 * <p>Fields, all from the header (RFC 8166 §4.2): {@link #xid()},
 * {@link #vers()}, {@link #credits()}, {@link #proc()}; for RDMA_MSG and
 * RDMA_NOMSG the {@link #readList()}, {@link #writeList()} and
 * {@link #replyChunk()}; for RDMA_ERROR {@link #errorCode()},
 * {@link #versLow()} and {@link #versHigh()}. Positions in the receive
 * buffer: the header spans {@code [headerOffset(), bodyOffset())} and the
 * inline RPC body {@code [bodyOffset(), bodyOffset() + bodyLength())}; the
 * body is never copied.
 *
 * <p>Which fields are meaningful depends on the status the decode returned:
 * all of them after {@link DecodeStatus#OK}; xid, vers, credits and proc after
 * {@link DecodeStatus#WRONG_VERSION} and any malformed status but
 * {@link DecodeStatus#TRUNCATED_FIXED_HEADER} (which leaves absent words 0).
 *
 * <p>Ownership and threading: the receive context that owns the buffer owns
 * this object; it MUST NOT be read while a decode into it runs, and its
 * content is valid only until the next decode.
 */
public final class ParsedHeader {

    private final ReadList readList;
    private final WriteList writeList;
    private final SegmentList replyChunk;
    private int xid;
    private int vers;
    private int credits;
    private int proc;
    private int errorCode;
    private int versLow;
    private int versHigh;
    private int headerOffset;
    private int bodyOffset;
    private int bodyLength;

    /**
     * ParsedHeader() - allocate a holder sized for {@code limits}.
     *
     * @param limits the bounds the decoders that fill this holder enforce
     */
    public ParsedHeader(RpcRdmaLimits limits) {
        this.readList = new ReadList(limits);
        this.writeList = new WriteList(limits);
        this.replyChunk = new SegmentList(limits.maxSegmentsPerChunk());
    }

    /** @return the transaction id, as sent (RFC 8166 §4.2.1) */
    public int xid() {
        return xid;
    }

    /** @return the version field (RFC 8166 §4.2.2) */
    public int vers() {
        return vers;
    }

    /** @return the credit value (RFC 8166 §4.2.3): requested by a call, granted by a reply */
    public int credits() {
        return credits;
    }

    /** @return the procedure, one of the {@code RpcRdma.RDMA_*} values (RFC 8166 §4.2.4) */
    public int proc() {
        return proc;
    }

    /** @return the read chunks; empty unless proc is RDMA_MSG or RDMA_NOMSG */
    public ReadList readList() {
        return readList;
    }

    /** @return the write chunks; empty unless proc is RDMA_MSG or RDMA_NOMSG */
    public WriteList writeList() {
        return writeList;
    }

    /** @return the reply chunk's segments; empty when the header has no reply chunk */
    public SegmentList replyChunk() {
        return replyChunk;
    }

    /** @return true when the header carries a reply chunk (which always has a segment) */
    public boolean hasReplyChunk() {
        return !replyChunk.isEmpty();
    }

    /** @return for RDMA_ERROR, {@link RpcRdma#ERR_VERS} or {@link RpcRdma#ERR_CHUNK}; else 0 */
    public int errorCode() {
        return errorCode;
    }

    /** @return for ERR_VERS, the lowest version the sender supports; else 0 */
    public int versLow() {
        return versLow;
    }

    /** @return for ERR_VERS, the highest version the sender supports; else 0 */
    public int versHigh() {
        return versHigh;
    }

    /** @return absolute index of the header's first byte in the receive buffer */
    public int headerOffset() {
        return headerOffset;
    }

    /** @return length of the transport header in bytes */
    public int headerLength() {
        return bodyOffset - headerOffset;
    }

    /** @return absolute index of the first inline RPC body byte in the receive buffer */
    public int bodyOffset() {
        return bodyOffset;
    }

    /** @return length of the inline RPC body in bytes (0 for RDMA_NOMSG) */
    public int bodyLength() {
        return bodyLength;
    }

    /**
     * fits() - tell whether this holder is large enough for headers accepted under {@code limits}.
     *
     * @param limits the bounds of a decoder
     * @return true when every pre-sized array is at least as large as those bounds need
     */
    public boolean fits(RpcRdmaLimits limits) {
        return readList.segments().capacity() >= limits.maxReadSegments()
                && readList.chunkCapacity() >= limits.maxReadChunks()
                && writeList.chunkCapacity() >= limits.maxWriteChunks()
                && writeList.segments().capacity() >= limits.maxWriteChunks() * limits.maxSegmentsPerChunk()
                && replyChunk.capacity() >= limits.maxSegmentsPerChunk();
    }

    /**
     * copyReplyChunksFrom() - make this holder what a reply to {@code call} needs: its xid,
     * version and credits, procedure RDMA_MSG, an empty read list, and its write list and reply
     * chunk as decoded. No bytes are decoded again and nothing is allocated: a responder keeps
     * this copy in a pooled per-call context while the call's own holder is reused.
     *
     * <p>Assumptions: {@code call} was decoded with {@link DecodeStatus#OK}; this holder
     * {@link #fits} the limits {@code call} was decoded under.
     *
     * @param call the decoded call
     * @throws IllegalArgumentException when a list of {@code call} does not fit this holder
     */
    public void copyReplyChunksFrom(ParsedHeader call) {
        WriteList writes = call.writeList;
        SegmentList reply = call.replyChunk;
        if (writes.chunkCount() > writeList.chunkCapacity()
                || writes.segments().count() > writeList.segments().capacity()
                || reply.count() > replyChunk.capacity()) {
            throw new IllegalArgumentException("the call's chunk lists (" + writes.chunkCount() + " write chunk(s) of "
                    + writes.segments().count() + " segment(s), a reply chunk of " + reply.count()
                    + " segment(s)) do not fit this holder");
        }
        reset(0);
        xid = call.xid;
        vers = call.vers;
        credits = call.credits;
        proc = RpcRdma.RDMA_MSG;
        SegmentList segments = writes.segments();
        for (int c = 0; c < writes.chunkCount(); c++) {
            writeList.beginChunk();
            int first = writes.firstSegment(c);
            for (int s = first; s < first + writes.segmentCount(c); s++) {
                writeList.addSegment(segments.handle(s), (int) segments.length(s), segments.offset(s));
            }
        }
        for (int s = 0; s < reply.count(); s++) {
            replyChunk.add(reply.handle(s), (int) reply.length(s), reply.offset(s));
        }
    }

    /**
     * contentEquals() - compare the protocol content of two headers.
     *
     * <p>Compares the fixed fields, the error fields and the three lists (read
     * chunks with positions and inline offsets, write chunks, reply chunk),
     * not where the header sat in its buffer nor the body bytes.
     *
     * @param other another parsed header
     * @return true when both decode to the same protocol content
     */
    public boolean contentEquals(ParsedHeader other) {
        return xid == other.xid && vers == other.vers && credits == other.credits && proc == other.proc
                && errorCode == other.errorCode && versLow == other.versLow && versHigh == other.versHigh
                && bodyLength == other.bodyLength
                && readList.contentEquals(other.readList)
                && writeList.contentEquals(other.writeList)
                && replyChunk.count() == other.replyChunk.count()
                && replyChunk.contentEquals(0, other.replyChunk, 0, replyChunk.count());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ParsedHeader[xid=").append(Integer.toHexString(xid))
                .append(", vers=").append(vers).append(", credits=").append(credits)
                .append(", proc=").append(RpcRdma.toString(proc));
        if (proc == RpcRdma.RDMA_ERROR) {
            sb.append(", err=").append(RpcRdma.errorToString(errorCode))
                    .append(", low=").append(versLow).append(", high=").append(versHigh);
        } else {
            sb.append(", reads={");
            readList.appendTo(sb);
            sb.append("}, writes={");
            writeList.appendTo(sb);
            sb.append("}, reply={");
            replyChunk.appendTo(sb, 0, replyChunk.count());
            sb.append('}');
        }
        return sb.append(", header=").append(headerLength()).append(", body=").append(bodyLength)
                .append(']').toString();
    }

    void reset(int offset) {
        xid = 0;
        vers = 0;
        credits = 0;
        proc = 0;
        errorCode = 0;
        versLow = 0;
        versHigh = 0;
        headerOffset = offset;
        bodyOffset = offset;
        bodyLength = 0;
        readList.clear();
        writeList.clear();
        replyChunk.clear();
    }

    void setFixedHeader(int xid, int vers, int credits, int proc) {
        this.xid = xid;
        this.vers = vers;
        this.credits = credits;
        this.proc = proc;
    }

    void setError(int errorCode, int versLow, int versHigh) {
        this.errorCode = errorCode;
        this.versLow = versLow;
        this.versHigh = versHigh;
    }

    void setBody(int bodyOffset, int bodyLength) {
        this.bodyOffset = bodyOffset;
        this.bodyLength = bodyLength;
    }
}
