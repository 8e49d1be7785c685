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
 * @param registeredBytes bytes of memory the transport holds registered: every connection's
 *        receive and send buffers, and every loop's pools (READ sinks: capacity x sink length of
 *        each live pool; the reply staging slab once registered)
 */
public record ResourceUsage(int heldReceiveContexts, int postedReceives, int sendBuffersInUse, int readsInFlight,
                            int outstandingSinks, int sinkRegistrations, int connections, int replyStagingBytes,
                            int sendQueueSlotsInUse, long registeredBytes) {
    /** The usage of the first seven pools only (the rest 0), for comparisons that leave them out. */
    public ResourceUsage(int heldReceiveContexts, int postedReceives, int sendBuffersInUse, int readsInFlight,
                         int outstandingSinks, int sinkRegistrations, int connections) {
        this(heldReceiveContexts, postedReceives, sendBuffersInUse, readsInFlight, outstandingSinks, sinkRegistrations,
                connections, 0, 0, 0);
    }
}
