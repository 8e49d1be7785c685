package org.rpcrdma4j.codec;

/**
 * DecodeStatus - what {@link HeaderDecoder#decode} concluded, with the reason for a rejection.
 *
 * <p>Decoding never throws on bad input; it returns one of these constants
 * (enum constants, so reporting a result allocates nothing). The
 * {@link #outcome()} tells the transport what to do:
 * <ul>
 * <li>{@link Outcome#OK}: the header is valid and fully parsed;</li>
 * <li>{@link Outcome#WRONG_VERSION}: answer RDMA_ERROR / ERR_VERS
 *     (RFC 8166 §4.5.1);</li>
 * <li>{@link Outcome#MALFORMED}: answer RDMA_ERROR / ERR_CHUNK
 *     (RFC 8166 §4.5.2), except as noted on {@link #TRUNCATED_FIXED_HEADER}.</li>
 * </ul>
 * A transport MUST NOT answer a received RDMA_ERROR with another RDMA_ERROR,
 * whatever its status, or two peers could bounce errors forever.
 */
public enum DecodeStatus {

    /** The header is valid; the parsed header holds every field. */
    OK(Outcome.OK),
    /** rdma_vers is not 1; the four fixed-header fields are set, nothing else is parsed. */
    WRONG_VERSION(Outcome.WRONG_VERSION),

    /** Fewer than four words: no complete fixed header. Fields present are set; with no xid, drop the message. */
    TRUNCATED_FIXED_HEADER,
    /** rdma_proc is not a procedure of RFC 8166. */
    UNKNOWN_PROCEDURE,
    /** rdma_proc is RDMA_MSGP, which version 1 no longer supports (RFC 8166 §4.6.1). */
    MSGP_NOT_SUPPORTED,
    /** A list discriminator is neither 0 (absent) nor 1 (present). */
    BAD_DISCRIMINATOR,
    /** The read list does not end inside the buffer. */
    READ_LIST_TRUNCATED,
    /** The write list does not end inside the buffer. */
    WRITE_LIST_TRUNCATED,
    /** The reply chunk does not end inside the buffer. */
    REPLY_CHUNK_TRUNCATED,
    /** A write or reply chunk's segment count needs more bytes than remain (CVE-2024-53151 class). */
    SEGMENT_COUNT_BEYOND_BUFFER,
    /** A write chunk with zero segments (CVE-2026-93228 class). */
    ZERO_SEGMENT_WRITE_CHUNK,
    /** A reply chunk with zero segments (CVE-2026-93228 class). */
    ZERO_SEGMENT_REPLY_CHUNK,
    /** More read items than {@link RpcRdmaLimits#maxReadSegments()}. */
    TOO_MANY_READ_SEGMENTS,
    /** More distinct read positions than {@link RpcRdmaLimits#maxReadChunks()}. */
    TOO_MANY_READ_CHUNKS,
    /** More write chunks than {@link RpcRdmaLimits#maxWriteChunks()}. */
    TOO_MANY_WRITE_CHUNKS,
    /** A write chunk with more segments than {@link RpcRdmaLimits#maxSegmentsPerChunk()}. */
    TOO_MANY_WRITE_SEGMENTS,
    /** A reply chunk with more segments than {@link RpcRdmaLimits#maxSegmentsPerChunk()}. */
    TOO_MANY_REPLY_SEGMENTS,
    /** The read list names more bytes than {@link RpcRdmaLimits#maxReadBytes()}. */
    READ_BYTES_OVER_LIMIT,
    /** The write list names more bytes than {@link RpcRdmaLimits#maxWriteBytes()}. */
    WRITE_BYTES_OVER_LIMIT,
    /** The reply chunk names more bytes than {@link RpcRdmaLimits#maxReplyBytes()}. */
    REPLY_BYTES_OVER_LIMIT,
    /** A read position is not a multiple of four (RFC 8166 §3.4.5). */
    MISALIGNED_READ_POSITION,
    /** A read chunk would be inserted past the end of the inline body (or of the position-zero chunk). */
    READ_POSITION_BEYOND_INLINE,
    /** A read chunk starts inside the data of the chunk before it. */
    OVERLAPPING_READ_CHUNKS,
    /** RDMA_MSG carries its message inline, so a position-zero read chunk contradicts it. */
    POSITION_ZERO_CHUNK_IN_MSG,
    /** An RDMA_NOMSG call without the position-zero read chunk that must carry the call (RFC 8166 §3.5.3). */
    NOMSG_WITHOUT_POSITION_ZERO_CHUNK,
    /** An RDMA_NOMSG reply without the reply chunk that must carry the reply (RFC 8166 §3.5.3). */
    NOMSG_WITHOUT_REPLY_CHUNK,
    /** RDMA_NOMSG followed by inline bytes, which have no place in the message. */
    NOMSG_WITH_INLINE_BODY,
    /** A reply carrying a read list; only calls use read chunks (RFC 8166 §4.3.1). */
    READ_LIST_IN_REPLY,
    /** RDMA_ERROR ends before its error code, or ERR_VERS before vers_low and vers_high. */
    TRUNCATED_ERROR_BODY,
    /** RDMA_ERROR with an error code other than ERR_VERS or ERR_CHUNK. */
    UNKNOWN_ERROR_CODE;

    /** Outcome - the three ways a decode can end, and so the three answers a transport gives. */
    public enum Outcome {
        /** Valid header. */
        OK,
        /** Unsupported version: answer ERR_VERS. */
        WRONG_VERSION,
        /** Anything else wrong: answer ERR_CHUNK. */
        MALFORMED
    }

    private final Outcome outcome;

    DecodeStatus() {
        this(Outcome.MALFORMED);
    }

    DecodeStatus(Outcome outcome) {
        this.outcome = outcome;
    }

    /** @return whether the header is valid, of the wrong version, or malformed */
    public Outcome outcome() {
        return outcome;
    }

    /** @return true for {@link #OK} */
    public boolean isOk() {
        return outcome == Outcome.OK;
    }

    /**
     * errorCode() - the RDMA_ERROR code that answers this status.
     *
     * @return {@link RpcRdma#ERR_VERS}, {@link RpcRdma#ERR_CHUNK}, or 0 for {@link #OK}
     */
    public int errorCode() {
        switch (outcome) {
            case WRONG_VERSION:
                return RpcRdma.ERR_VERS;
            case MALFORMED:
                return RpcRdma.ERR_CHUNK;
            default:
                return 0;
        }
    }
}
