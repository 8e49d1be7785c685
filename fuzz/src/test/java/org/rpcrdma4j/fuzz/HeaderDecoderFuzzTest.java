package org.rpcrdma4j.fuzz;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.DecodeStatus;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReadList;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.codec.Xdr;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * HeaderDecoderFuzzTest - coverage-guided fuzzing of {@link HeaderDecoder} with Jazzer: any bytes
 * as a received message, decoded as a server (RESPONDER) and as a client (REQUESTER).
 *
 * <p>Invariants, for every input: decode returns a status and never throws; the same bytes at an
 * odd offset of a larger buffer, followed by garbage, decode to the same status and content (no
 * byte outside the message is read); the parsed holder keeps its pre-sized capacity; a status
 * names the answer the protocol gives (ERR_VERS, ERR_CHUNK, or none for OK). For an OK header:
 * header and body add up to the message, read chunks are XDR-aligned, inserted in order within
 * the stream they belong to (the inline body, or for RDMA_NOMSG the position-zero chunk) and
 * within the byte limit, and the header re-encodes (with the same body) to a message that decodes
 * to equal content.
 *
 * <p>Without {@code JAZZER_FUZZ} this replays {@code HeaderDecoderFuzzTestInputs/decode/} (the
 * corpus and every finding); {@code ./fuzz-jazzer} fuzzes.
 */
class HeaderDecoderFuzzTest {
    /** Small limits so that the fuzzer reaches every "too many" and "too large" branch. */
    static final RpcRdmaLimits LIMITS = RpcRdmaLimits.builder()
            .maxReadSegments(16).maxReadChunks(4).maxWriteChunks(3).maxSegmentsPerChunk(8)
            .maxReadBytes(1 << 20).maxWriteBytes(1 << 20).maxReplyBytes(1 << 20).build();
    private static final int MAX_INPUT = 8192;
    private static final int SHIFT = 7;

    private final HeaderDecoder responder = new HeaderDecoder(LIMITS, HeaderDecoder.Role.RESPONDER);
    private final HeaderDecoder requester = new HeaderDecoder(LIMITS, HeaderDecoder.Role.REQUESTER);
    private final ParsedHeader parsed = new ParsedHeader(LIMITS);
    private final ParsedHeader shifted = new ParsedHeader(LIMITS);
    private final ParsedHeader again = new ParsedHeader(LIMITS);
    private final HeaderWriter writer = new HeaderWriter();

    @FuzzTest(maxDuration = "2h")
    void decode(byte[] input) {
        if (input.length > MAX_INPUT) {
            return;
        }
        check(responder, input);
        check(requester, input);
    }

    private void check(HeaderDecoder decoder, byte[] input) {
        ByteBuffer exact = ByteBuffer.wrap(input);
        DecodeStatus status = decoder.decode(exact, 0, input.length, parsed);
        require(status != null, "a status");
        require(parsed.fits(LIMITS) && parsed.readList().segments().count() <= LIMITS.maxReadSegments()
                && parsed.readList().chunkCount() <= LIMITS.maxReadChunks()
                && parsed.writeList().chunkCount() <= LIMITS.maxWriteChunks()
                && parsed.replyChunk().count() <= LIMITS.maxSegmentsPerChunk(), "capacity kept: " + parsed);
        require(status.isOk() == (status.errorCode() == 0), "only OK needs no answer: " + status);
        require(status.outcome() != DecodeStatus.Outcome.WRONG_VERSION || parsed.vers() != RpcRdma.VERSION_1,
                "ERR_VERS only for another version");

        ByteBuffer padded = ByteBuffer.allocate(input.length + 2 * SHIFT);
        for (int i = 0; i < padded.capacity(); i++) {
            padded.put(i, (byte) (0xA5 ^ i));
        }
        padded.put(SHIFT, input);
        DecodeStatus status2 = decoder.decode(padded, SHIFT, input.length, shifted);
        require(status2 == status, "same bytes, same status at another offset: " + status + " vs " + status2);
        require(!status.isOk() || shifted.contentEquals(parsed), "same content at another offset");
        require(!status.isOk() || shifted.headerOffset() == SHIFT, "header offset");

        if (status.isOk()) {
            checkValid(decoder, input);
        }
    }

    private void checkValid(HeaderDecoder decoder, byte[] input) {
        require(parsed.headerLength() + parsed.bodyLength() == input.length, "header + body = message: " + parsed);
        require(Xdr.isAligned(parsed.headerLength()), "header length is whole XDR words");
        ReadList reads = parsed.readList();
        // The stream the other chunks are inserted into: the inline body, or for RDMA_NOMSG the
        // position-zero chunk's data (RFC 8166 section 3.5.3).
        boolean positionZero = reads.hasPositionZeroChunk();
        long stream = parsed.proc() == RpcRdma.RDMA_NOMSG && positionZero ? reads.chunkLength(0) : parsed.bodyLength();
        require(!positionZero || parsed.proc() == RpcRdma.RDMA_NOMSG, "a position-zero chunk only in RDMA_NOMSG");
        long total = 0;
        long previous = 0;
        for (int c = 0; c < reads.chunkCount(); c++) {
            require(Xdr.isAligned(reads.position(c)), "read chunk position aligned");
            total += reads.chunkLength(c);
            if (c == 0 && positionZero) {
                continue;
            }
            require(reads.inlineOffset(c) >= previous && reads.inlineOffset(c) <= stream,
                    "read chunks inserted in order within the stream they belong to: " + parsed);
            previous = reads.inlineOffset(c);
        }
        require(total <= LIMITS.maxReadBytes(), "read bytes within the limit");
        ByteBuffer out = ByteBuffer.allocate(input.length + 64 * 1024);
        int n = writer.wrap(out, 0, out.capacity()).encode(parsed);
        out.put(n, input, parsed.headerLength(), parsed.bodyLength());
        DecodeStatus status = decoder.decode(out, 0, n + parsed.bodyLength(), again);
        require(status == DecodeStatus.OK, "a re-encoded valid header decodes: " + status + " " + parsed);
        require(again.contentEquals(parsed), "re-encoded content equal: " + parsed + " vs " + again);
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
