package org.rpcrdma4j.codec;

/**
 * RpcRdma - constants of RPC-over-RDMA version 1 (RFC 8166).
 *
 * <p>Every transport header starts with four fixed XDR words, the same for all
 * versions (RFC 8166 §4.2):
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                           rdma_xid                            |  XID_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                           rdma_vers                           |  VERS_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          rdma_credit                          |  CREDITS_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                           rdma_proc                           |  PROC_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>RDMA_MSG and RDMA_NOMSG continue with three chunk lists (RFC 8166 §4.3),
 * each an XDR optional-data chain introduced by a "present" word (1) and ended
 * by an "absent" word (0):
 *
 * <pre>
 * read list   := { 1, position, handle, length, offset(hi), offset(lo) }* 0
 * write list  := { 1, count, { handle, length, offset(hi), offset(lo) } x count }* 0
 * reply chunk := 1, count, { handle, length, offset(hi), offset(lo) } x count
 *              | 0
 * </pre>
 *
 * <p>An RDMA segment (RFC 8166 §3.4.3) is {@code SEGMENT_WORDS} words; a read
 * item (RFC 8166 §3.4.5) prefixes it with an XDR position. RDMA_ERROR
 * continues with an error code and, for ERR_VERS, the lowest and highest
 * versions the sender supports (RFC 8166 §4.5.1). RDMA_MSGP and RDMA_DONE are
 * no longer supported (RFC 8166 §4.6).
 */
public final class RpcRdma {

    /** The only version defined by RFC 8166 (§4.2.2). */
    public static final int VERSION_1 = 1;

    /** RPC message follows the header inline (RFC 8166 §4.2.4). */
    public static final int RDMA_MSG = 0;
    /** No inline RPC message: it travels in a position-zero read chunk or the reply chunk. */
    public static final int RDMA_NOMSG = 1;
    /** Padded message, RFC 5666 only; recognised and rejected (RFC 8166 §4.6.1). */
    public static final int RDMA_MSGP = 2;
    /** Chunk release signal, RFC 5666 only; carries nothing (RFC 8166 §4.6.2). */
    public static final int RDMA_DONE = 3;
    /** Error report (RFC 8166 §4.5). */
    public static final int RDMA_ERROR = 4;

    /** The peer does not support the header's version; low and high follow. */
    public static final int ERR_VERS = 1;
    /** The header or its chunks could not be parsed or processed. */
    public static final int ERR_CHUNK = 2;

    /** XDR optional-data discriminator: no more items. */
    public static final int ITEM_ABSENT = 0;
    /** XDR optional-data discriminator: an item follows. */
    public static final int ITEM_PRESENT = 1;

    /** Words of the fixed header: xid, vers, credits, proc. */
    public static final int FIXED_HEADER_WORDS = 4;
    /** Words of an RDMA segment: handle, length, offset (a hyper). */
    public static final int SEGMENT_WORDS = 4;
    /** Words of a read item after its discriminator: position and a segment. */
    public static final int READ_SEGMENT_WORDS = 1 + SEGMENT_WORDS;
    /** Words of the discriminator that precedes every list item. */
    public static final int DISCRIMINATOR_WORDS = 1;
    /** Words of a write or reply chunk's segment count. */
    public static final int SEGMENT_COUNT_WORDS = 1;
    /** Words of an RDMA_MSG/NOMSG header with three empty lists. */
    public static final int MIN_MSG_HEADER_WORDS = FIXED_HEADER_WORDS + 3 * DISCRIMINATOR_WORDS;
    /** Words of an ERR_CHUNK body: the error code. */
    public static final int ERR_CHUNK_WORDS = 1;
    /** Words of an ERR_VERS body: the error code, vers_low and vers_high. */
    public static final int ERR_VERS_WORDS = 3;

    /** Byte offset of rdma_xid. */
    public static final int XID_OFFSET = 0;
    /** Byte offset of rdma_vers. */
    public static final int VERS_OFFSET = 4;
    /** Byte offset of rdma_credit. */
    public static final int CREDITS_OFFSET = 8;
    /** Byte offset of rdma_proc. */
    public static final int PROC_OFFSET = 12;
    /** Byte offset of the first word after the fixed header. */
    public static final int BODY_OFFSET = Xdr.wordsToBytes(FIXED_HEADER_WORDS);

    /** Inline threshold each way before any RFC 8797 exchange (RFC 8166 §3.3.3). */
    public static final int DEFAULT_INLINE_THRESHOLD = 1024;

    private RpcRdma() {
    }

    /**
     * toString() - name of a procedure number.
     *
     * @param proc an rdma_proc value
     * @return "RDMA_MSG" ... "RDMA_ERROR", or "RDMA_PROC(n)" for an unknown value
     */
    public static String toString(int proc) {
        switch (proc) {
            case RDMA_MSG:
                return "RDMA_MSG";
            case RDMA_NOMSG:
                return "RDMA_NOMSG";
            case RDMA_MSGP:
                return "RDMA_MSGP";
            case RDMA_DONE:
                return "RDMA_DONE";
            case RDMA_ERROR:
                return "RDMA_ERROR";
            default:
                return "RDMA_PROC(" + Integer.toUnsignedString(proc) + ")";
        }
    }

    /**
     * errorToString() - name of an RDMA_ERROR code.
     *
     * @param errorCode an rdma_err value
     * @return "ERR_VERS", "ERR_CHUNK", or "ERR(n)" for an unknown value
     */
    public static String errorToString(int errorCode) {
        switch (errorCode) {
            case ERR_VERS:
                return "ERR_VERS";
            case ERR_CHUNK:
                return "ERR_CHUNK";
            default:
                return "ERR(" + Integer.toUnsignedString(errorCode) + ")";
        }
    }
}
