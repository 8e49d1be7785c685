package org.rpcrdma4j.transport.internal;

import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;

/**
 * UsageTally - what the loops and their connections hold, added up by {@link CompletionLoop#addUsage}
 * and {@link ConnectionState#addUsage} for {@link TransportEngine#usage()}: one named field per pool,
 * turned into the public {@link ResourceUsage} at the end.
 *
 * <p>Threading: filled by one thread while no loop runs concurrently (leak checks and tests).
 */
public final class UsageTally {
    public int heldReceiveContexts;
    public int postedReceives;
    public int sendBuffersInUse;
    public int readsInFlight;
    int outstandingSinks;
    int sinkRegistrations;
    int connections;
    int replyStagingBytes;
    public int sendQueueSlotsInUse;
    public long registeredBytes;

    ResourceUsage toResourceUsage() {
        return new ResourceUsage(heldReceiveContexts, postedReceives, sendBuffersInUse, readsInFlight, outstandingSinks,
                sinkRegistrations, connections, replyStagingBytes, sendQueueSlotsInUse, registeredBytes);
    }
}
