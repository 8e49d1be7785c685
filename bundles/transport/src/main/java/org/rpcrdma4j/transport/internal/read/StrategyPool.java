package org.rpcrdma4j.transport.internal.read;

import org.rpcrdma4j.transport.internal.common.PoolShare;
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
public final class StrategyPool {
    private final RegistrationStrategy strategy;
    private final SinkPool pool;
    private final PoolShare share;
    private boolean retired;
    private boolean closed;

    public StrategyPool(RegistrationStrategy strategy, SinkPool pool) {
        this.strategy = strategy;
        this.pool = pool;
        this.share = new PoolShare(pool.capacity());
    }

    /** @return how the connections of the loop share this pool's sinks */
    PoolShare share() {
        return share;
    }

    public RegistrationStrategy strategy() {
        return strategy;
    }

    String name() {
        return strategy.name();
    }

    public int sinkLength() {
        return pool.sinkLength();
    }

    public int capacity() {
        return pool.capacity();
    }

    int free() {
        return retired ? 0 : pool.capacity() - pool.outstanding();
    }

    public int outstanding() {
        return pool.outstanding();
    }

    public int liveRegistrations() {
        return pool.liveRegistrations();
    }

    ReadSink allocate() {
        return retired ? null : pool.allocate();
    }

    public boolean isRetired() {
        return retired;
    }

    public boolean isClosed() {
        return closed;
    }

    public void retire() {
        retired = true;
    }

    /**
     * closeIfIdle() - close the pool once it is retired and every sink is back.
     *
     * @return true when the pool is closed (now or before)
     */
    public boolean closeIfIdle() {
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
