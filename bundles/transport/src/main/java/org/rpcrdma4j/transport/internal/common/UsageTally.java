package org.rpcrdma4j.transport.internal.common;

import org.rpcrdma4j.transport.ResourceUsage;

/**
 * UsageTally - what the completion loops and their connections hold, added up pool by pool for
 * the transport's resource usage: one named field per pool, each filled by the part that owns the
 * pool, turned into the public {@link ResourceUsage} at the end.
 *
 * <p>Threading: filled by one thread while no loop runs concurrently (leak checks and tests).
 */
public final class UsageTally {
    public int heldReceiveContexts;
    public int postedReceives;
    public int sendBuffersInUse;
    public int readsInFlight;
    public int outstandingSinks;
    public int sinkRegistrations;
    public int connections;
    public int replyStagingBytes;
    public int sendQueueSlotsInUse;
    public long registeredBytes;

    public ResourceUsage toResourceUsage() {
        return new ResourceUsage(heldReceiveContexts, postedReceives, sendBuffersInUse, readsInFlight, outstandingSinks,
                sinkRegistrations, connections, replyStagingBytes, sendQueueSlotsInUse, registeredBytes);
    }
}
