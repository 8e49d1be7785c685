package org.rpcrdma4j.transport.internal.common;

/**
 * PoolShare - the fair-share policy of one pool that the connections of a completion loop share
 * (a strategy's READ sinks, counted in sinks; the reply staging slab, counted in bytes), so that
 * no connection can take what the others need (svcrdma bounds each transport by its own
 * sc_max_requests; here the pools are shared, so the bound is a share).
 *
 * <p>Each connection has an {@link Account}. A connection may hold at most its <em>limit</em>:
 * <ul>
 * <li>what its credits justify ({@code ceiling}: credits x the largest request it may make);</li>
 * <li>never more than the pool less a <em>reserve</em> of a quarter of it, so a connection
 *     alone still leaves room for the next one to start at once;</li>
 * <li>when several connections compete (hold something, or wait), at most an equal part of the
 *     pool ({@code capacity / competitors}).</li>
 * </ul>
 * A connection holding nothing may always take one request's worth when the pool has room, so a
 * request larger than the limit still runs (alone). Past its limit a connection's request waits
 * for the connection's own releases ({@link Verdict#OVER_SHARE}), not for other connections';
 * when the pool itself has no room it is {@link Verdict#POOL_EMPTY} (starvation, whatever the
 * share says).
 *
 * <p>Threading: not synchronized. The READ sinks' shares are confined to their loop; the staging
 * slab calls it under its own lock.
 */
public final class PoolShare {
    /** What {@link Account#admit} decided. */
    public enum Verdict {
        /** Take it now. */
        ADMIT,
        /** The connection holds its share already: wait for its own releases. */
        OVER_SHARE,
        /** The pool has no room: wait for any release. */
        POOL_EMPTY
    }

    private final long capacity;
    private final long reserve;
    /** Connections that hold something or wait. */
    private int competitors;

    /** @param capacity units the pool holds */
    public PoolShare(long capacity) {
        this.capacity = capacity;
        this.reserve = capacity / 4;
    }

    long capacity() {
        return capacity;
    }

    /** @return connections that hold something from the pool or wait for it */
    public int competitors() {
        return competitors;
    }

    /**
     * limit() - the most a connection may hold now.
     *
     * @param ceiling what its credits justify
     * @return its limit, at least 1
     */
    long limit(long ceiling) {
        long fair = capacity / Math.max(1, competitors);
        return Math.max(1, Math.min(Math.min(ceiling, capacity - reserve), fair));
    }

    /** @return a new account for a connection whose credits justify {@code ceiling} units */
    public Account account(long ceiling) {
        return new Account(ceiling);
    }

    /** Account - one connection's holding in the pool. */
    public final class Account {
        private final long ceiling;
        private long held;
        private boolean waiting;
        /** What the last {@link #admit} or {@link #poolEmpty} decided. */
        private Verdict verdict = Verdict.ADMIT;

        private Account(long ceiling) {
            this.ceiling = Math.max(1, ceiling);
        }

        public long held() {
            return held;
        }

        public boolean waiting() {
            return waiting;
        }

        /**
         * verdict() - why the connection's last request was refused, for the caller to count
         * (read by the thread that made the request, under whatever guards its requests).
         *
         * @return what the last {@link #admit} or {@link #poolEmpty} decided
         */
        public Verdict verdict() {
            return verdict;
        }

        /** @return the most this connection may hold now */
        long limit() {
            return PoolShare.this.limit(ceiling);
        }

        /**
         * admit() - may this connection take {@code units} more now? A refusal marks it waiting
         * (a competitor) until it takes or {@link #stopWaiting()}.
         *
         * @param units what the request needs
         * @param free what the pool has free (for a fragmenting pool: 0 when no extent fits)
         * @return the verdict
         */
        public Verdict admit(long units, long free) {
            if (free < units) {
                return poolEmpty();
            }
            if (!fitsShare(units)) {
                setWaiting(true);
                verdict = Verdict.OVER_SHARE;
            } else {
                verdict = Verdict.ADMIT;
            }
            return verdict;
        }

        /**
         * fitsShare() - would {@code units} more keep this connection within its limit (or is it
         * the one request a connection holding nothing may always make)? Decides nothing: no
         * verdict, no waiting.
         */
        public boolean fitsShare(long units) {
            return held == 0 || held + units <= limit();
        }

        /**
         * added() - the connection took {@code units} without a request of its own waiting for
         * them ({@link #fitsShare}): a request that waits keeps waiting.
         */
        public void added(long units) {
            add(units, waiting);
        }

        /** took() - the request took {@code units}; it waits no more. */
        public void took(long units) {
            add(units, false);
        }

        private void add(long units, boolean stillWaiting) {
            boolean wasActive = active();
            held += units;
            waiting = stillWaiting;
            update(wasActive);
        }

        /** gave() - {@code units} came back. */
        public void gave(long units) {
            if (units > held) {
                throw new IllegalStateException("gave back " + units + " but held " + held);
            }
            boolean wasActive = active();
            held -= units;
            update(wasActive);
        }

        /**
         * poolEmpty() - an admitted request found the pool unable to serve it after all (the free
         * units were fragmented, or a strategy refused): the connection waits like any refused one.
         *
         * @return {@link Verdict#POOL_EMPTY}
         */
        public Verdict poolEmpty() {
            setWaiting(true);
            verdict = Verdict.POOL_EMPTY;
            return verdict;
        }

        /** stopWaiting() - the waiting request went away (dropped, re-planned, connection closing). */
        public void stopWaiting() {
            setWaiting(false);
        }

        private void setWaiting(boolean value) {
            boolean wasActive = active();
            waiting = value;
            update(wasActive);
        }

        private boolean active() {
            return held > 0 || waiting;
        }

        private void update(boolean wasActive) {
            boolean now = active();
            if (now != wasActive) {
                competitors += now ? 1 : -1;
            }
        }
    }
}
