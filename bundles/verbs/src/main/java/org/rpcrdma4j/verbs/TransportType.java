package org.rpcrdma4j.verbs;

/** The RDMA transport a device speaks. It decides a few rules the upper layers must follow. */
public enum TransportType {
    /** InfiniBand. */
    INFINIBAND,
    /** RDMA over Converged Ethernet (v1 or v2), including soft-RoCE (rxe). */
    ROCE,
    /** iWARP, including soft-iWARP (siw). */
    IWARP;

    /**
     * Whether the local sink of an RDMA READ must be registered with {@link Access#REMOTE_WRITE}.
     * iWARP places READ responses like remote writes (RFC 5040), so it does; IB and RoCE do not.
     *
     * @return true for iWARP
     */
    public boolean readSinkRequiresRemoteWrite() {
        return this == IWARP;
    }
}
