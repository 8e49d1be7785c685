package org.rpcrdma4j.transport;

/**
 * ResourceUsage - what an {@link RdmaTransport} holds at one moment.
 *
 * @param heldReceiveContexts receive contexts neither free nor posted: being decoded, waiting for
 *        READs, or held by handlers
 * @param postedReceives receives posted on all connections
 * @param sendBuffersInUse send buffers posted or waiting for the send queue
 * @param readsInFlight READ chains posted and not yet complete
 * @param outstandingSinks read sinks taken from every strategy's pools
 * @param sinkRegistrations registrations the sink pools hold (slabs, valid fast-registration keys,
 *        per-request regions)
 * @param connections connections not yet removed
 * @param replyStagingBytes bytes of reply staging memory allocated to replies whose RDMA WRITEs
 *        or SEND have not completed (aligned extents)
 * @param sendQueueSlotsInUse send-queue slots taken by requests posted (or reserved) and not yet
 *        completed, on all connections
 */
public record ResourceUsage(int heldReceiveContexts, int postedReceives, int sendBuffersInUse, int readsInFlight,
                            int outstandingSinks, int sinkRegistrations, int connections, int replyStagingBytes,
                            int sendQueueSlotsInUse) {
}
