package org.rpcrdma4j.transport.internal.read;

import java.util.Arrays;

import org.rpcrdma4j.codec.ReadList;
import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.spi.ReadSink;

/**
 * ReadPlan - the RDMA READs that pull one call's read chunks: every segment cut into pieces of
 * at most one sink, in XDR order (chunks by position, segments in list order), with the sink and
 * progress of each piece.
 *
 * <p>The arrays grow to the largest call seen and are then reused, so steady state allocates
 * nothing. Owned by a {@link ReceiveContext}; confined to the completion thread.
 */
public final class ReadPlan {
    private int[] pieceChunk = new int[8];
    private long[] pieceRemote = new long[8];
    private int[] pieceRkey = new int[8];
    private int[] pieceLength = new int[8];
    private ReadSink[] pieceSink = new ReadSink[8];
    private final int[] chunkFirstPiece;
    private final int[] chunkPieces;
    private int pieceCount;
    private int nextToPost;
    private int posted;
    private int completed;
    private boolean failed;
    private boolean queued;
    private StrategyPool pool;
    /** The connection's share of {@link #pool} the sinks are counted against, while any is held. */
    private PoolShare.Account account;

    public ReadPlan(RpcRdmaLimits limits) {
        chunkFirstPiece = new int[limits.maxReadChunks()];
        chunkPieces = new int[limits.maxReadChunks()];
    }

    /**
     * countPieces() - how many sinks a read list needs with sinks of {@code sinkLength} bytes,
     * computed without storing anything.
     *
     * @return the number of pieces, or -1 when it exceeds {@code max}
     */
    static long countPieces(ReadList reads, int sinkLength, int max) {
        long pieces = 0;
        for (int c = 0; c < reads.chunkCount(); c++) {
            for (int s = 0; s < reads.segmentCount(c); s++) {
                pieces += (reads.length(c, s) + sinkLength - 1) / sinkLength;
                if (pieces > max) {
                    return -1;
                }
            }
        }
        return pieces;
    }

    /**
     * build() - cut the read list into pieces for {@code pool}'s sinks.
     *
     * <p>Assumptions: {@link #countPieces} said the pieces fit; no sink of a previous call is
     * still held.
     */
    void build(ReadList reads, StrategyPool strategyPool) {
        reset();
        this.pool = strategyPool;
        int sinkLength = strategyPool.sinkLength();
        for (int c = 0; c < reads.chunkCount(); c++) {
            chunkFirstPiece[c] = pieceCount;
            for (int s = 0; s < reads.segmentCount(c); s++) {
                long remaining = reads.length(c, s);
                long remote = reads.offset(c, s);
                int rkey = reads.handle(c, s);
                while (remaining > 0) {
                    int length = (int) Math.min(remaining, sinkLength);
                    addPiece(c, remote, rkey, length);
                    remote += length;
                    remaining -= length;
                }
            }
            chunkPieces[c] = pieceCount - chunkFirstPiece[c];
        }
        queued = true;
    }

    private void addPiece(int chunk, long remote, int rkey, int length) {
        if (pieceCount == pieceChunk.length) {
            int n = pieceCount * 2;
            pieceChunk = Arrays.copyOf(pieceChunk, n);
            pieceRemote = Arrays.copyOf(pieceRemote, n);
            pieceRkey = Arrays.copyOf(pieceRkey, n);
            pieceLength = Arrays.copyOf(pieceLength, n);
            pieceSink = Arrays.copyOf(pieceSink, n);
        }
        pieceChunk[pieceCount] = chunk;
        pieceRemote[pieceCount] = remote;
        pieceRkey[pieceCount] = rkey;
        pieceLength[pieceCount] = length;
        pieceCount++;
    }

    /**
     * allocateSinks() - take every sink the plan needs at once, or none: a call never holds part
     * of the pool while it waits for the rest, so calls of different connections cannot starve
     * each other. The sinks are counted against the connection's share until they are freed.
     *
     * @param share the connection's account in this plan's pool ({@link ReadScheduler} admitted the call)
     * @return true when every piece has its sink
     */
    boolean allocateSinks(PoolShare.Account share) {
        if (pool.free() < pieceCount) {
            return false;
        }
        for (int i = 0; i < pieceCount; i++) {
            pieceSink[i] = pool.allocate();
        }
        account = share;
        share.took(pieceCount);
        return true;
    }

    boolean hasSinks() {
        return pieceCount == 0 || pieceSink[0] != null;
    }

    /** freeSinks() - return every sink taken; safe to call twice. */
    void freeSinks() {
        int freed = 0;
        for (int i = 0; i < pieceCount; i++) {
            if (pieceSink[i] != null) {
                pieceSink[i].free();
                pieceSink[i] = null;
                freed++;
            }
        }
        if (account != null) {
            account.gave(freed);
            account = null;
        }
    }

    public void reset() {
        freeSinks();
        pieceCount = 0;
        nextToPost = 0;
        posted = 0;
        completed = 0;
        failed = false;
        queued = false;
        pool = null;
    }

    StrategyPool pool() {
        return pool;
    }

    int pieceCount() {
        return pieceCount;
    }

    public int chunkFirstPiece(int chunk) {
        return chunkFirstPiece[chunk];
    }

    public int chunkPieces(int chunk) {
        return chunkPieces[chunk];
    }

    public int pieceLength(int piece) {
        return pieceLength[piece];
    }

    long pieceRemote(int piece) {
        return pieceRemote[piece];
    }

    int pieceRkey(int piece) {
        return pieceRkey[piece];
    }

    int pieceChunk(int piece) {
        return pieceChunk[piece];
    }

    public ReadSink pieceSink(int piece) {
        return pieceSink[piece];
    }

    boolean hasUnposted() {
        return nextToPost < pieceCount;
    }

    /** @return the next piece to post, advancing the cursor */
    int takeNextPiece() {
        posted++;
        return nextToPost++;
    }

    /** pieceCompleted() - one piece's chain is done. */
    void pieceCompleted(boolean success) {
        completed++;
        if (!success) {
            failed = true;
        }
    }

    /** @return true when every posted piece's chain has completed */
    boolean quiet() {
        return completed == posted;
    }

    /** @return true when every piece was posted and has completed */
    boolean done() {
        return nextToPost == pieceCount && completed == posted;
    }

    boolean failed() {
        return failed;
    }

    void fail() {
        failed = true;
    }

    boolean queued() {
        return queued;
    }

    void dequeued() {
        queued = false;
    }
}
