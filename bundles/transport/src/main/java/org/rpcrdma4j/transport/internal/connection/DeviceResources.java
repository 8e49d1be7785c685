package org.rpcrdma4j.transport.internal.connection;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.read.SinkPools;
import org.rpcrdma4j.transport.internal.read.StrategyPool;
import org.rpcrdma4j.transport.internal.sendto.ReplyStaging;
import org.rpcrdma4j.transport.internal.sendto.StagingSlab;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * DeviceResources - what a completion loop shares between its connections on one device: the
 * protection domain, each strategy's sink pool and the reply staging slab. Each connection takes
 * from the pools only its share
 * ({@link org.rpcrdma4j.transport.internal.common.PoolShare}), so none can starve the others.
 *
 * <p>Ownership: owned by the transport engine, which closes it after its last connection is
 * gone. Confined to the completion thread.
 */
public final class DeviceResources implements SinkPools {
    private final VerbsDevice device;
    private final ProtectionDomain protectionDomain;
    private final SinkPoolParameters parameters;
    private final boolean autoSinkCount;
    private final List<StrategyPool> pools = new ArrayList<>();
    private final StagingSlab replyStaging;

    /**
     * @param parameters how to size each strategy's pool; with {@code autoSinkCount} its sink
     *        count is 1 and the pools are sized by bytes ({@link #sized})
     */
    public DeviceResources(VerbsDevice device, ProtectionDomain protectionDomain, SinkPoolParameters parameters,
                    boolean autoSinkCount, int replyStagingBytes) {
        this.device = device;
        this.protectionDomain = protectionDomain;
        this.parameters = parameters;
        this.autoSinkCount = autoSinkCount;
        this.replyStaging = new StagingSlab(protectionDomain, replyStagingBytes);
    }

    /** @return the staging memory of the loop's replies on this device (connections allocate through their {@link ReplyStaging}) */
    public StagingSlab replyStaging() {
        return replyStaging;
    }

    public VerbsDevice device() {
        return device;
    }

    ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /**
     * poolFor() - the live pool of a strategy on this device, created on first use.
     *
     * @return the pool
     * @throws VerbsException when the strategy cannot set up its pool
     */
    @Override
    public StrategyPool poolFor(RegistrationStrategy strategy) throws VerbsException {
        for (int i = 0; i < pools.size(); i++) {
            StrategyPool p = pools.get(i);
            if (p.strategy() == strategy && !p.isRetired()) {
                return p;
            }
        }
        StrategyPool p = new StrategyPool(strategy, strategy.createSinkPool(protectionDomain, sized(strategy)));
        pools.add(p);
        return p;
    }

    /**
     * sized() - the parameters of a strategy's pool: the configured sink count, or (readSinkCount
     * 0, the default) as many sinks as hold {@link TransportConfig#AUTO_READ_POOL_BYTES} at the
     * sink length the strategy chooses on this device (64 KiB lkey sinks on a device with 16
     * READ SGEs, 256 KiB FRMR sinks: the pool holds the same bytes). The strategy's choice is
     * learnt from a one-sink probe pool, closed at once (once per strategy, loop and device).
     */
    private SinkPoolParameters sized(RegistrationStrategy strategy) throws VerbsException {
        if (parameters.sinkCount() > 0 && !autoSinkCount) {
            return parameters;
        }
        int sinkLength;
        SinkPool probe = strategy.createSinkPool(protectionDomain, parameters);
        try {
            sinkLength = probe.sinkLength();
        } finally {
            probe.close();
        }
        return new SinkPoolParameters(TransportConfig.autoReadSinkCount(sinkLength),
                parameters.maxSinkLength(), parameters.pageSize(), parameters.maxReadSge());
    }

    /** retireMissing() - retire the pools of strategies no longer registered. */
    public void retireMissing(Collection<RegistrationStrategy> registered) {
        for (StrategyPool p : pools) {
            if (!registered.contains(p.strategy())) {
                p.retire();
            }
        }
    }

    /** closeIdlePools() - close retired pools whose sinks are all back, and forget them. */
    public void closeIdlePools() {
        pools.removeIf(StrategyPool::closeIfIdle);
    }

    /** @return sinks handed out by every pool of this device */
    public int outstandingSinks() {
        int n = 0;
        for (StrategyPool p : pools) {
            n += p.outstanding();
        }
        return n;
    }

    /**
     * @return bytes of registered memory the pools hold: every live sink pool's sinks (capacity x
     *         sink length; a per-I/O strategy registers them as it goes) and the staging slab once
     *         registered
     */
    public long registeredBytes() {
        long n = replyStaging.isRegistered() ? replyStaging.capacity() : 0;
        for (StrategyPool p : pools) {
            if (!p.isClosed()) {
                n += (long) p.capacity() * p.sinkLength();
            }
        }
        return n;
    }

    /** @return registrations held by every pool of this device */
    public int liveRegistrations() {
        int n = 0;
        for (StrategyPool p : pools) {
            n += p.liveRegistrations();
        }
        return n + (replyStaging.allocated() > 0 ? 1 : 0);
    }

    /**
     * close() - retire every pool, close those that are idle and, once none is left, the domain.
     *
     * @return true when everything is released
     */
    public boolean close() {
        for (StrategyPool p : pools) {
            p.retire();
        }
        closeIdlePools();
        if (!pools.isEmpty() || !replyStaging.close()) {
            return false;
        }
        try {
            protectionDomain.close();
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }
}
