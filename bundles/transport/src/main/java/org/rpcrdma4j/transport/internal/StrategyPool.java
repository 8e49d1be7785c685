package org.rpcrdma4j.transport.internal;

import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;

/**
 * StrategyPool - one strategy's {@link SinkPool} on one device, as the transport tracks it.
 *
 * <p>Every sink remembers its pool, and so its strategy: a READ started under a strategy
 * completes and frees into that strategy's pool even after another strategy became active. A
 * pool whose strategy went away is <em>retired</em>: it hands out nothing more and is closed once
 * its last sink is back. Its sinks are shared among the loop's connections by a {@link PoolShare}.
 * Confined to the completion thread.
 */
final class StrategyPool {
    private final RegistrationStrategy strategy;
    private final SinkPool pool;
    private final PoolShare share;
    private boolean retired;
    private boolean closed;

    StrategyPool(RegistrationStrategy strategy, SinkPool pool) {
        this.strategy = strategy;
        this.pool = pool;
        this.share = new PoolShare(pool.capacity());
    }

    /** @return how the connections of the loop share this pool's sinks */
    PoolShare share() {
        return share;
    }

    RegistrationStrategy strategy() {
        return strategy;
    }

    String name() {
        return strategy.name();
    }

    int sinkLength() {
        return pool.sinkLength();
    }

    int capacity() {
        return pool.capacity();
    }

    int free() {
        return retired ? 0 : pool.capacity() - pool.outstanding();
    }

    int outstanding() {
        return pool.outstanding();
    }

    int liveRegistrations() {
        return pool.liveRegistrations();
    }

    ReadSink allocate() {
        return retired ? null : pool.allocate();
    }

    boolean isRetired() {
        return retired;
    }

    boolean isClosed() {
        return closed;
    }

    void retire() {
        retired = true;
    }

    /**
     * closeIfIdle() - close the pool once it is retired and every sink is back.
     *
     * @return true when the pool is closed (now or before)
     */
    boolean closeIfIdle() {
        if (!closed && retired && pool.outstanding() == 0) {
            closed = true;
            try {
                pool.close();
            } catch (RuntimeException e) {
                // The strategy could not release its memory; nothing more can be done for it.
                return true;
            }
        }
        return closed;
    }
}
