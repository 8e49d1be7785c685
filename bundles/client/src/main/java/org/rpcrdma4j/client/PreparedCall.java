package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A call ready to post: the procedure chosen, every chunk registered, the header size known.
 *
 * <p>Ownership: a prepared call owns the regions it registered until {@link #release} is called,
 * which its holder MUST do exactly once on every path (reply, error, close). The call table holds
 * it while the call is outstanding; after the call left the table the thread that removed it owns
 * it. Immutable apart from the release.
 */
final class PreparedCall {
    /** Most chunks of one call when chunks are fast-registered (each needs a REG_MR before the SEND). */
    static final int MAX_FAST_REGISTRATIONS = 8;
    /** Most segments one chunk may be advertised with (the reply decoder's bound). */
    static final int MAX_SEGMENTS_PER_CHUNK = RpcRdmaLimits.MAX_COUNT;

    private static final int CHUNK_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE;

    private final CallRequest request;
    private final CompletableFuture<RpcReply> future;
    private final int proc;
    private final Chunk positionZeroChunk;
    private final List<Chunk> readChunks;
    private final List<Chunk> writeChunks;
    private final Chunk replyChunk;
    private final int headerLength;
    private final List<ChunkMemory> regions;
    private boolean released;

    private PreparedCall(CallRequest request, CompletableFuture<RpcReply> future, int proc, Chunk positionZeroChunk, List<Chunk> readChunks,
            List<Chunk> writeChunks, Chunk replyChunk, int headerLength, List<ChunkMemory> regions) {
        this.request = request;
        this.future = future;
        this.proc = proc;
        this.positionZeroChunk = positionZeroChunk;
        this.readChunks = readChunks;
        this.writeChunks = writeChunks;
        this.replyChunk = replyChunk;
        this.headerLength = headerLength;
        this.regions = regions;
    }

    /**
     * Chooses how the call travels and registers its chunks.
     *
     * @param request the call
     * @param future completed with the call's outcome
     * @param registrar registers in the client's protection domain
     * @param sendLimit the largest message that may be sent (the server's receive size, capped
     *        by ours)
     * @param maxSegmentLength the longest segment to advertise
     * @return the prepared call, owning its registrations
     * @throws IllegalArgumentException when the call fits no way it may be sent
     * @throws VerbsException when a registration fails (the ones done are released)
     */
    static PreparedCall prepare(CallRequest request, CompletableFuture<RpcReply> future, Registrar registrar, int sendLimit,
            int maxSegmentLength) throws VerbsException {
        if (request.isRaw()) {
            if (request.messageLength() > sendLimit) {
                throw new IllegalArgumentException("raw message of " + request.messageLength() + " bytes exceeds the send limit " + sendLimit);
            }
            return new PreparedCall(request, future, -1, null, List.of(), List.of(), null, 0, List.of());
        }
        checkSegments(request, maxSegmentLength);
        HeaderSize size = HeaderSize.of(request, maxSegmentLength);
        int proc = chooseProcedure(request, size, sendLimit);
        int chunks = request.readChunks().size() + request.writeChunks().size() + (request.replyChunk() != null ? 1 : 0)
                + (proc == RpcRdma.RDMA_NOMSG ? 1 : 0);
        if (registrar.fastRegistration() && chunks > MAX_FAST_REGISTRATIONS) {
            throw new IllegalArgumentException(chunks + " chunks; with fast registration a call has at most " + MAX_FAST_REGISTRATIONS);
        }
        if (chunks == 0) {
            // An inline call without chunks registers nothing: no lists to build.
            return new PreparedCall(request, future, proc, null, List.of(), List.of(), null, size.msgHeaderLength(), List.of());
        }
        List<ChunkMemory> regions = new ArrayList<>();
        try {
            Chunk positionZero = null;
            if (proc == RpcRdma.RDMA_NOMSG) {
                positionZero = new Chunk(register(registrar, regions, inlineStream(request), Access.REMOTE_READ),
                        request.inlineStreamLength(), maxSegmentLength, 0);
            }
            List<Chunk> reads = new ArrayList<>();
            for (CallRequest.DdpItem item : request.readChunks()) {
                ByteBuffer data = directCopyOf(request.message(), item.offset(), item.length());
                reads.add(new Chunk(register(registrar, regions, data, Access.REMOTE_READ), item.length(), maxSegmentLength, item.offset()));
            }
            List<Chunk> writes = new ArrayList<>();
            for (ByteBuffer sink : request.writeChunks()) {
                writes.add(new Chunk(register(registrar, regions, sink, CHUNK_ACCESS), sink.capacity(), maxSegmentLength, 0));
            }
            Chunk reply = null;
            if (request.replyChunk() != null) {
                ByteBuffer sink = request.replyChunk();
                reply = new Chunk(register(registrar, regions, sink, CHUNK_ACCESS), sink.capacity(), maxSegmentLength, 0);
            }
            int headerLength = proc == RpcRdma.RDMA_NOMSG ? size.nomsgHeaderLength() : size.msgHeaderLength();
            return new PreparedCall(request, future, proc, positionZero, List.copyOf(reads), List.copyOf(writes), reply, headerLength,
                    List.copyOf(regions));
        } catch (VerbsException | RuntimeException e) {
            for (ChunkMemory region : regions) {
                VerbsException failed = region.release();
                if (failed != null) {
                    e.addSuppressed(failed);
                }
            }
            throw e;
        }
    }

    private static void checkSegments(CallRequest request, int maxSegmentLength) {
        long longest = request.inlineStreamLength();
        for (CallRequest.DdpItem item : request.readChunks()) {
            longest = Math.max(longest, item.length());
        }
        for (ByteBuffer sink : request.writeChunks()) {
            longest = Math.max(longest, sink.capacity());
        }
        if (request.replyChunk() != null) {
            longest = Math.max(longest, request.replyChunk().capacity());
        }
        if (Chunk.segmentCount((int) longest, maxSegmentLength) > MAX_SEGMENTS_PER_CHUNK) {
            throw new IllegalArgumentException("a chunk of " + longest + " bytes needs more than " + MAX_SEGMENTS_PER_CHUNK
                    + " segments of " + maxSegmentLength + " bytes");
        }
    }

    private static int chooseProcedure(CallRequest request, HeaderSize size, int sendLimit) {
        long inlineMessage = (long) size.msgHeaderLength() + request.inlineStreamLength();
        switch (request.mode()) {
            case INLINE:
                if (inlineMessage > sendLimit) {
                    throw new IllegalArgumentException("inline call of " + inlineMessage + " bytes exceeds the send limit " + sendLimit);
                }
                return RpcRdma.RDMA_MSG;
            case AUTO:
                if (inlineMessage <= sendLimit) {
                    return RpcRdma.RDMA_MSG;
                }
                break;
            case NOMSG:
            default:
                break;
        }
        if (size.nomsgHeaderLength() > sendLimit) {
            throw new IllegalArgumentException("RDMA_NOMSG header of " + size.nomsgHeaderLength() + " bytes exceeds the send limit " + sendLimit);
        }
        return RpcRdma.RDMA_NOMSG;
    }

    private static ChunkMemory register(Registrar registrar, List<ChunkMemory> regions, ByteBuffer buffer, int access)
            throws VerbsException {
        ChunkMemory region = registrar.registerChunk(buffer, access);
        regions.add(region);
        return region;
    }

    /** The message without its DDP items, in a direct buffer of exactly that length (the message itself when it is direct and has none). */
    private static ByteBuffer inlineStream(CallRequest request) {
        ByteBuffer message = request.message();
        if (message.isDirect() && request.readChunks().isEmpty()) {
            return message.slice(0, message.remaining());
        }
        ByteBuffer stream = ByteBuffer.allocateDirect(request.inlineStreamLength());
        copyInlineStream(request, stream, 0);
        return stream;
    }

    private static ByteBuffer directCopyOf(ByteBuffer message, int offset, int length) {
        if (message.isDirect()) {
            return message.slice(offset, length);
        }
        ByteBuffer copy = ByteBuffer.allocateDirect(length);
        copy.put(0, message, offset, length);
        return copy;
    }

    /**
     * Copies the message without its DDP items (and their padding).
     *
     * @param request the call
     * @param target where to copy, with {@link CallRequest#inlineStreamLength()} bytes free at
     *        {@code offset}
     * @param offset the absolute index of the first byte
     * @return the bytes copied
     */
    static int copyInlineStream(CallRequest request, ByteBuffer target, int offset) {
        ByteBuffer message = request.message();
        int from = 0;
        int to = offset;
        for (CallRequest.DdpItem item : request.readChunks()) {
            target.put(to, message, from, item.offset() - from);
            to += item.offset() - from;
            from = item.paddedEnd();
        }
        target.put(to, message, from, message.remaining() - from);
        to += message.remaining() - from;
        return to - offset;
    }

    /**
     * Deregisters every region of the call; a second call does nothing.
     *
     * @return null, or the first failure (later ones suppressed)
     */
    VerbsException release() {
        if (released) {
            return null;
        }
        released = true;
        VerbsException first = null;
        for (int i = 0; i < regions.size(); i++) {
            VerbsException failed = regions.get(i).release();
            if (failed != null) {
                if (first == null) {
                    first = failed;
                } else {
                    first.addSuppressed(failed);
                }
            }
        }
        return first;
    }

    CallRequest request() {
        return request;
    }

    CompletableFuture<RpcReply> future() {
        return future;
    }

    int xid() {
        return request.xid();
    }

    /** @return RDMA_MSG, RDMA_NOMSG, or -1 for a raw send */
    int proc() {
        return proc;
    }

    Chunk positionZeroChunk() {
        return positionZeroChunk;
    }

    List<Chunk> readChunks() {
        return readChunks;
    }

    List<Chunk> writeChunks() {
        return writeChunks;
    }

    Chunk replyChunk() {
        return replyChunk;
    }

    /** @return the encoded header's length (0 for a raw send) */
    int headerLength() {
        return headerLength;
    }

    /** @return the chunk memory of the call, in registration order */
    List<ChunkMemory> memory() {
        return regions;
    }

    /** @return the bytes the SEND carries before any mutation */
    int sendLength() {
        if (proc == -1) {
            return request.messageLength();
        }
        return proc == RpcRdma.RDMA_MSG ? headerLength + request.inlineStreamLength() : headerLength;
    }
}
