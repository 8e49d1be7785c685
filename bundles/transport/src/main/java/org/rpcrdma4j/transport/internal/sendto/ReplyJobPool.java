package org.rpcrdma4j.transport.internal.sendto;

import org.rpcrdma4j.codec.RpcRdmaLimits;

/**
 * ReplyJobPool - the pooled per-call contexts ({@link ReplyJob}) of one connection: a call's
 * reply takes one when its reply is detached and gives it back once the reply is posted (its
 * bytes are in registered memory), refused with ERR_CHUNK, dropped, or abandoned.
 *
 * <p>Bounded by the connection's receive contexts: a context exists only while a call holds it,
 * and the pool makes them lazily, so a connection with one call in flight holds one. A handler
 * that keeps more replies open than the connection has receive contexts (it released its calls
 * early) gets contexts outside the pool, which the collector takes when they are done: correct,
 * only not free of allocation.
 *
 * <p>Threading: any thread (a detach on the completion loop, a return on a worker or the loop);
 * a short lock that is almost never contended, and no allocation once warm.
 */
public final class ReplyJobPool {
    private final ReplyConnection connection;
    private final RpcRdmaLimits limits;
    private final ReplyJob[] free;
    private int freeCount;
    private int created;

    public ReplyJobPool(ReplyConnection connection, RpcRdmaLimits limits, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " must be positive");
        }
        this.connection = connection;
        this.limits = limits;
        this.free = new ReplyJob[capacity];
    }

    /** @return a free context, made when the pool has none yet (outside the pool beyond its capacity) */
    public ReplyJob acquire() {
        synchronized (this) {
            if (freeCount > 0) {
                ReplyJob job = free[--freeCount];
                free[freeCount] = null;
                return job;
            }
            if (created < free.length) {
                created++;
                return new ReplyJob(connection, this, limits);
            }
        }
        return new ReplyJob(connection, null, limits);
    }

    /** release() - a context whose reply is finished comes back (called by {@link ReplyJob} only). */
    synchronized void release(ReplyJob job) {
        if (freeCount == free.length) {
            throw new IllegalStateException(job + " returned to a full pool");
        }
        free[freeCount++] = job;
    }

    /** @return contexts made for this pool so far */
    synchronized int created() {
        return created;
    }

    /** @return contexts in the pool, not in use */
    synchronized int available() {
        return freeCount;
    }
}
