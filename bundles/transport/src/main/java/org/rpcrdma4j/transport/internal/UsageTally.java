package org.rpcrdma4j.transport.internal;

import org.rpcrdma4j.transport.ResourceUsage;

/**
 * UsageTally - what the loops and their connections hold, added up by {@link CompletionLoop#addUsage}
 * and {@link ConnectionState#addUsage} for {@link TransportEngine#usage()}: one named field per pool,
 * turned into the public {@link ResourceUsage} at the end.
 *
 * <p>Threading: filled by one thread while no loop runs concurrently (leak checks and tests).
 */
final class UsageTally {
    int heldReceiveContexts;
    int postedReceives;
    int sendBuffersInUse;
    int readsInFlight;
    int outstandingSinks;
    int sinkRegistrations;
    int connections;
    int replyStagingBytes;
    int sendQueueSlotsInUse;
    long registeredBytes;

    ResourceUsage toResourceUsage() {
        return new ResourceUsage(heldReceiveContexts, postedReceives, sendBuffersInUse, readsInFlight, outstandingSinks,
                sinkRegistrations, connections, replyStagingBytes, sendQueueSlotsInUse, registeredBytes);
    }
}
