package org.rpcrdma4j.transport.internal.sendto;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ReplyStaging - one connection's share of its loop's {@link StagingSlab}: the reply path
 * allocates and frees its staging extents here, and what the connection holds is counted against
 * its {@link PoolShare share} of the slab (what its credits justify: credits x the largest reply
 * it may stage, at most three quarters of the slab, and an equal part of it when other
 * connections compete). Past its share, a reply waits for this connection's own SENDs to complete
 * ({@link Counter#REPLY_STAGING_SHARE_WAITS}); when the slab itself is full, for anyone's
 * ({@link Counter#REPLY_STAGING_STARVATION}). Each hold-up is counted once per episode.
 *
 * <p>Ownership: the connection owns it; every extent it hands out is freed with its reply's SEND
 * (completed or flushed) before the connection is torn down, when {@link #close()} withdraws any
 * waiting request from the slab's share. Threading: {@link #allocate} under the connection's send
 * lock (the loop's pass, or a worker posting its own reply); {@link #allocateNow} and
 * {@link #free} from any thread (a worker encoding a reply, a reply recycled); the slab has its
 * own lock.
 */
public final class ReplyStaging {
    /** Extents are aligned to a cache line, so two replies never share one. */
    static final int ALIGNMENT = StagingSlab.ALIGNMENT;

    private final StagingSlab slab;
    private final PoolShare.Account account;
    private final Counters counters;
    private Counter stalled;

    /**
     * @param credits the credits the connection grants: at most that many replies at once
     */
    public ReplyStaging(StagingSlab slab, int credits, Counters counters) {
        this.slab = slab;
        this.counters = counters;
        this.account = slab.openAccount((long) credits * slab.capacity());
    }

    /** @return the largest extent that could ever be allocated */
    int capacity() {
        return slab.capacity();
    }

    /** @return the registered slab (registered on first use) */
    MemoryRegion region() throws VerbsException {
        return slab.region();
    }

    /**
     * allocate() - take an extent of at least {@code length} bytes.
     *
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset in the slab, or -1 when the reply must wait (counted)
     */
    int allocate(int length) {
        int at = slab.allocate(account, length);
        if (at >= 0) {
            stalled = null;
            return at;
        }
        Counter reason = account.verdict() == PoolShare.Verdict.OVER_SHARE ? Counter.REPLY_STAGING_SHARE_WAITS
                : Counter.REPLY_STAGING_STARVATION;
        if (stalled != reason) {
            stalled = reason;
            counters.increment(reason);
        }
        return -1;
    }

    /**
     * allocateNow() - an extent for a reply about to be encoded straight into registered memory
     * ({@link ReplyJob#largerReplyBuffer}), only if it can be had at once and the slab is
     * registered; never counted as a wait (the reply is then encoded into ordinary memory). Any
     * thread: the slab's lock.
     *
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset in the slab, or -1
     */
    int allocateNow(int length) {
        return slab.allocateNow(account, length);
    }

    /** @return the registered slab, or null while it is not registered (never registers it: any thread) */
    MemoryRegion registeredRegion() {
        return slab.registeredRegion();
    }

    /** free() - give back an extent {@link #allocate} or {@link #allocateNow} returned (any thread: the slab's lock). */
    void free(int offset, int length) {
        slab.free(account, offset, length);
    }

    /** close() - the connection is torn down: a reply still waiting no longer competes. */
    public void close() {
        slab.stopWaiting(account);
        stalled = null;
    }
}
