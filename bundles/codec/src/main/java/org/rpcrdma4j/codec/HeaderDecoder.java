package org.rpcrdma4j.codec;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * HeaderDecoder - validate and parse an RPC-over-RDMA version 1 transport header (RFC 8166).
 *
 * <p>Decoding runs in two passes, like Linux's parsed chunk lists: a scan that
 * validates the shape of the chunk lists and counts them without storing
 * anything ({@link ChunkListScanner}), then a parse into a reused, pre-sized
 * {@link ParsedHeader} ({@link ChunkListParser}), then the checks that need
 * the whole header: procedure consistency and read chunk placement
 * ({@link ReadChunkPlacer}). Bad input never throws: every outcome is a
 * {@link DecodeStatus}. In steady state a decode allocates nothing.
 *
 * <p>What a valid header must satisfy beyond its XDR shape depends on the
 * {@link Role} of the receiving end:
 * <ul>
 * <li>{@link Role#RESPONDER} (receives calls): RDMA_MSG carries no
 *     position-zero read chunk; RDMA_NOMSG carries one; read chunks do not
 *     overlap and are inserted within the inline stream.</li>
 * <li>{@link Role#REQUESTER} (receives replies): no read list at all;
 *     RDMA_NOMSG carries a reply chunk; a write chunk may be empty (an unused
 *     chunk returned with zero segments, RFC 8166 §3.4.6).</li>
 * </ul>
 * For both, RDMA_NOMSG has no inline bytes after its header, RDMA_MSGP is
 * rejected, RDMA_DONE is accepted as an empty header, and RDMA_ERROR must
 * carry a known error code (with vers_low and vers_high for ERR_VERS).
 *
 * <p>Threading: an instance holds a reader flyweight and scan state; it MUST
 * be confined to one thread (one per completion loop).
 */
public final class HeaderDecoder {

    /** Role - which side of RPC the receiving endpoint plays, so which messages it expects. */
    public enum Role {
        /** Receives calls: a server (or a client's backchannel service). */
        RESPONDER,
        /** Receives replies: a client. */
        REQUESTER
    }

    private final RpcRdmaLimits limits;
    private final Role role;
    private final XdrReader reader = new XdrReader();
    private final ChunkListScanner scanner;
    private final ChunkListParser parser;

    /**
     * HeaderDecoder() - a decoder enforcing {@code limits} for an endpoint playing {@code role}.
     *
     * @param limits bounds on chunks, segments and bytes
     * @param role whether calls or replies are decoded
     */
    public HeaderDecoder(RpcRdmaLimits limits, Role role) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.role = Objects.requireNonNull(role, "role");
        this.scanner = new ChunkListScanner(limits, role == Role.REQUESTER);
        this.parser = new ChunkListParser(limits);
    }

    /** @return the limits this decoder enforces */
    public RpcRdmaLimits limits() {
        return limits;
    }

    /** @return the role this decoder validates for */
    public Role role() {
        return role;
    }

    /**
     * decode() - validate and parse the header of a received message.
     *
     * <p>Assumptions: {@code [offset, offset + length)} holds exactly one
     * received message (the byte count of the receive completion), header
     * first. The buffer's position, limit and order are not used or changed.
     *
     * @param buffer the receive buffer
     * @param offset absolute index of the header's first byte
     * @param length bytes received
     * @param out the holder to fill; its previous content is discarded
     * @return {@link DecodeStatus#OK} or the reason the header is rejected
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     * @throws IllegalArgumentException if {@code out} was sized for smaller limits
     */
    public DecodeStatus decode(ByteBuffer buffer, int offset, int length, ParsedHeader out) {
        if (!out.fits(limits)) {
            throw new IllegalArgumentException("ParsedHeader is smaller than the decoder's " + limits);
        }
        reader.wrap(buffer, offset, length);
        out.reset(offset);
        if (!reader.hasWords(RpcRdma.FIXED_HEADER_WORDS)) {
            decodePartialFixedHeader(out);
            return DecodeStatus.TRUNCATED_FIXED_HEADER;
        }
        out.setFixedHeader(reader.readInt(), reader.readInt(), reader.readInt(), reader.readInt());
        finishHeader(out);
        if (out.vers() != RpcRdma.VERSION_1) {
            return DecodeStatus.WRONG_VERSION;
        }
        switch (out.proc()) {
            case RpcRdma.RDMA_MSG:
            case RpcRdma.RDMA_NOMSG:
                return decodeChunkLists(out);
            case RpcRdma.RDMA_ERROR:
                return decodeError(out);
            case RpcRdma.RDMA_DONE:
                return DecodeStatus.OK;
            case RpcRdma.RDMA_MSGP:
                return DecodeStatus.MSGP_NOT_SUPPORTED;
            default:
                return DecodeStatus.UNKNOWN_PROCEDURE;
        }
    }

    private void decodePartialFixedHeader(ParsedHeader out) {
        int xid = reader.hasWords(1) ? reader.peekInt(0) : 0;
        int vers = reader.hasWords(2) ? reader.peekInt(1) : 0;
        int credits = reader.hasWords(3) ? reader.peekInt(2) : 0;
        out.setFixedHeader(xid, vers, credits, 0);
    }

    private DecodeStatus decodeChunkLists(ParsedHeader out) {
        int listsStart = reader.position();
        DecodeStatus status = scanner.scan(reader);
        if (status != DecodeStatus.OK) {
            return status;
        }
        reader.position(listsStart);
        status = parser.parse(reader, scanner, out);
        if (status != DecodeStatus.OK) {
            return status;
        }
        finishHeader(out);
        status = role == Role.RESPONDER ? checkCall(out) : checkReply(out);
        if (status != DecodeStatus.OK) {
            return status;
        }
        long inlineLength = out.proc() == RpcRdma.RDMA_NOMSG && out.readList().hasPositionZeroChunk()
                ? out.readList().chunkLength(0)
                : out.bodyLength();
        return ReadChunkPlacer.placeReadChunks(out.readList(), inlineLength);
    }

    /** checkCall() - the procedure-level rules for a call (RFC 8166 §3.5). */
    private static DecodeStatus checkCall(ParsedHeader out) {
        boolean positionZero = out.readList().hasPositionZeroChunk();
        if (out.proc() == RpcRdma.RDMA_MSG) {
            return positionZero ? DecodeStatus.POSITION_ZERO_CHUNK_IN_MSG : DecodeStatus.OK;
        }
        if (!positionZero) {
            return DecodeStatus.NOMSG_WITHOUT_POSITION_ZERO_CHUNK;
        }
        return out.bodyLength() != 0 ? DecodeStatus.NOMSG_WITH_INLINE_BODY : DecodeStatus.OK;
    }

    /** checkReply() - the procedure-level rules for a reply (RFC 8166 §3.5, §4.3.1). */
    private static DecodeStatus checkReply(ParsedHeader out) {
        if (!out.readList().isEmpty()) {
            return DecodeStatus.READ_LIST_IN_REPLY;
        }
        if (out.proc() == RpcRdma.RDMA_MSG) {
            return DecodeStatus.OK;
        }
        if (!out.hasReplyChunk()) {
            return DecodeStatus.NOMSG_WITHOUT_REPLY_CHUNK;
        }
        return out.bodyLength() != 0 ? DecodeStatus.NOMSG_WITH_INLINE_BODY : DecodeStatus.OK;
    }

    /** decodeError() - the body of RDMA_ERROR (RFC 8166 §4.5). */
    private DecodeStatus decodeError(ParsedHeader out) {
        if (!reader.hasWords(RpcRdma.ERR_CHUNK_WORDS)) {
            return DecodeStatus.TRUNCATED_ERROR_BODY;
        }
        int errorCode = reader.readInt();
        switch (errorCode) {
            case RpcRdma.ERR_CHUNK:
                out.setError(errorCode, 0, 0);
                break;
            case RpcRdma.ERR_VERS:
                if (!reader.hasWords(RpcRdma.ERR_VERS_WORDS - RpcRdma.ERR_CHUNK_WORDS)) {
                    return DecodeStatus.TRUNCATED_ERROR_BODY;
                }
                out.setError(errorCode, reader.readInt(), reader.readInt());
                break;
            default:
                return DecodeStatus.UNKNOWN_ERROR_CODE;
        }
        finishHeader(out);
        return DecodeStatus.OK;
    }

    /** finishHeader() - the header ends at the cursor; the rest of the message is the inline body. */
    private void finishHeader(ParsedHeader out) {
        out.setBody(reader.position(), reader.limit() - reader.position());
    }
}
