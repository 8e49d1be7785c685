package org.rpcrdma4j.transport.internal.read;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.codec.ReadList;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ReadPlanner - decide whether and how a call's read chunks can be pulled: the active
 * strategy's pool on the connection's device ({@link SinkPools}), a body that fits an int, and no more sinks than the
 * pool holds (a call that could never get them would wait for ever).
 *
 * <p>Stateless; runs on the completion thread.
 */
public final class ReadPlanner {
    /** The outcome of planning. */
    public enum Result {
        /** The plan is built; the call waits for its READs. */
        PLANNED,
        /** No strategy is active, or its pool cannot be set up. */
        NO_STRATEGY,
        /** The call can never be pulled with this pool. */
        TOO_LARGE
    }

    /** Largest body the hand-off presents: views are indexed by int. */
    private static final long MAX_BODY = Integer.MAX_VALUE - Xdr.UNIT_BYTES;

    private ReadPlanner() {
    }

    /**
     * plan() - build the READ plan of a call whose header decoded OK with a read list.
     *
     * @return {@link Result#PLANNED} with the plan built, or why not
     */
    public static Result plan(ReadingCall ctx, RegistrationStrategy strategy, SinkPools device) {
        if (strategy == null) {
            return Result.NO_STRATEGY;
        }
        StrategyPool pool;
        try {
            pool = device.poolFor(strategy);
        } catch (VerbsException | RuntimeException e) {
            return Result.NO_STRATEGY;
        }
        ParsedHeader header = ctx.header();
        ReadList reads = header.readList();
        long body = header.bodyLength();
        for (int c = 0; c < reads.chunkCount(); c++) {
            body += reads.paddedLength(c);
        }
        if (body > MAX_BODY) {
            return Result.TOO_LARGE;
        }
        if (ReadPlan.countPieces(reads, pool.sinkLength(), pool.capacity()) < 0) {
            return Result.TOO_LARGE;
        }
        ctx.readPlan().build(reads, pool);
        return Result.PLANNED;
    }
}
