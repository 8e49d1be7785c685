package org.rpcrdma4j.transport.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * DeviceResources - what the transport shares between the connections of one device: the
 * protection domain and each strategy's sink pool.
 *
 * <p>Ownership: owned by the transport engine, which closes it after its last connection is
 * gone. Confined to the completion thread.
 */
final class DeviceResources {
    private final VerbsDevice device;
    private final ProtectionDomain protectionDomain;
    private final SinkPoolParameters parameters;
    private final List<StrategyPool> pools = new ArrayList<>();
    private final ReplyStaging replyStaging;

    DeviceResources(VerbsDevice device, ProtectionDomain protectionDomain, SinkPoolParameters parameters,
                    int replyStagingBytes) {
        this.device = device;
        this.protectionDomain = protectionDomain;
        this.parameters = parameters;
        this.replyStaging = new ReplyStaging(protectionDomain, replyStagingBytes);
    }

    /** @return the staging memory of this device's replies */
    ReplyStaging replyStaging() {
        return replyStaging;
    }

    VerbsDevice device() {
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
    StrategyPool poolFor(RegistrationStrategy strategy) throws VerbsException {
        for (int i = 0; i < pools.size(); i++) {
            StrategyPool p = pools.get(i);
            if (p.strategy() == strategy && !p.isRetired()) {
                return p;
            }
        }
        StrategyPool p = new StrategyPool(strategy, strategy.createSinkPool(protectionDomain, parameters));
        pools.add(p);
        return p;
    }

    /** retireMissing() - retire the pools of strategies no longer registered. */
    void retireMissing(Collection<RegistrationStrategy> registered) {
        for (StrategyPool p : pools) {
            if (!registered.contains(p.strategy())) {
                p.retire();
            }
        }
    }

    /** closeIdlePools() - close retired pools whose sinks are all back, and forget them. */
    void closeIdlePools() {
        pools.removeIf(StrategyPool::closeIfIdle);
    }

    /** @return sinks handed out by every pool of this device */
    int outstandingSinks() {
        int n = 0;
        for (StrategyPool p : pools) {
            n += p.outstanding();
        }
        return n;
    }

    /** @return registrations held by every pool of this device */
    int liveRegistrations() {
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
    boolean close() {
        for (StrategyPool p : pools) {
            p.retire();
        }
        closeIdlePools();
        if (!pools.isEmpty() || replyStaging.allocated() > 0) {
            return false;
        }
        if (!replyStaging.close()) {
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
