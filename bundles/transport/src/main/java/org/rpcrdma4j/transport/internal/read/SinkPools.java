package org.rpcrdma4j.transport.internal.read;

import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * SinkPools - the READ sink pools of the device a connection runs on, one per registration
 * strategy, shared by the connections of its completion loop: what {@link ReadPlanner} plans a
 * call's READs against. The loop's device resources implement it.
 *
 * <p>Threading: the completion loop that owns the device resources.
 */
public interface SinkPools {

    /**
     * poolFor() - the live pool of a strategy on this device, created on first use.
     *
     * @return the pool
     * @throws VerbsException when the strategy cannot set up its pool
     */
    StrategyPool poolFor(RegistrationStrategy strategy) throws VerbsException;
}
