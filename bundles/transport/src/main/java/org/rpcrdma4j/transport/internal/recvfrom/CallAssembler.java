package org.rpcrdma4j.transport.internal.recvfrom;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReadList;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.transport.internal.read.ReadPlan;

/**
 * CallAssembler - present a call whose read chunks have been pulled as views in XDR order.
 *
 * <p>The <em>inline stream</em> is the inline body (RDMA_MSG) or the data of the position-zero
 * chunk (RDMA_NOMSG). Every other chunk k is inserted at its inline offset (computed and checked
 * by the decoder): stream bytes up to it, the chunk's data, its XDR round-up from the shared zero
 * buffer, and so on; then the rest of the stream, whatever its size (the seed dropped tails
 * larger than a page). No byte is copied: each piece is a read-only slice of the receive buffer,
 * of a sink, or of the zero buffer.
 *
 * <p>Stateless apart from the zero buffer; the completion thread calls it.
 */
final class CallAssembler {
    /** Zeros for the XDR round-up of chunk data; shared memory, a fresh view per piece. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(Xdr.UNIT_BYTES).asReadOnlyBuffer();

    private CallAssembler() {
    }

    /**
     * assemble() - fill the context's body from its header and completed READ plan.
     *
     * <p>Assumptions: the header decoded OK with a read list; every piece of the plan has been
     * read into its sink.
     */
    static void assemble(ReceiveContext ctx) {
        ParsedHeader header = ctx.header();
        ReadList reads = header.readList();
        ReadPlan plan = ctx.readPlan();
        ctx.clearBody();
        boolean nomsg = header.proc() == RpcRdma.RDMA_NOMSG;
        int first = nomsg ? 1 : 0;
        long streamLength = nomsg ? reads.chunkLength(0) : header.bodyLength();
        long done = 0;
        for (int k = first; k < reads.chunkCount(); k++) {
            long at = reads.inlineOffset(k);
            addStream(ctx, nomsg, done, at);
            addChunk(ctx, plan, k);
            addPadding(ctx, reads.chunkLength(k));
            done = at;
        }
        addStream(ctx, nomsg, done, streamLength);
        if (nomsg) {
            addPadding(ctx, reads.chunkLength(0));
        }
        ctx.markReadAssembled();
    }

    /** addStream() - stream bytes {@code [from, to)}: inline body, or position-zero chunk data. */
    private static void addStream(ReceiveContext ctx, boolean nomsg, long from, long to) {
        if (to <= from) {
            return;
        }
        if (!nomsg) {
            int base = ctx.header().bodyOffset();
            ctx.addPiece(ctx.inlineSlice(base + (int) from, base + (int) to));
            return;
        }
        ReadPlan plan = ctx.readPlan();
        int firstPiece = plan.chunkFirstPiece(0);
        long pieceStart = 0;
        for (int p = firstPiece; p < firstPiece + plan.chunkPieces(0) && pieceStart < to; p++) {
            int length = plan.pieceLength(p);
            long lo = Math.max(from, pieceStart);
            long hi = Math.min(to, pieceStart + length);
            if (lo < hi) {
                ctx.addPiece(plan.pieceSink(p).data().slice((int) (lo - pieceStart), (int) (hi - lo)));
            }
            pieceStart += length;
        }
    }

    /** addChunk() - the data of chunk k, one view per READ. */
    private static void addChunk(ReceiveContext ctx, ReadPlan plan, int chunk) {
        int firstPiece = plan.chunkFirstPiece(chunk);
        for (int p = firstPiece; p < firstPiece + plan.chunkPieces(chunk); p++) {
            ctx.addPiece(plan.pieceSink(p).data().slice(0, plan.pieceLength(p)));
        }
    }

    /** addPadding() - the XDR round-up of chunk data (RFC 8166 §3.4.5.2). */
    private static void addPadding(ReceiveContext ctx, long chunkLength) {
        int pad = (int) (Xdr.roundUp(chunkLength) - chunkLength);
        if (pad > 0) {
            ctx.addPiece(ZEROS.slice(0, pad));
        }
    }
}
