package org.rpcrdma4j.verbs;

/** What a {@link SendWorkRequest} does. */
public enum SendOpcode {
    /** Send the SGE list into the peer's next posted receive. */
    SEND,
    /**
     * SEND that also invalidates {@link SendWorkRequest#invalidateKey()} at the peer (remote
     * invalidation; needs {@link DeviceCapabilities#remoteInvalidation()}).
     */
    SEND_WITH_INV,
    /** Write the SGE list to the peer's memory at remote address / rkey. */
    RDMA_WRITE,
    /** Read from the peer's memory at remote address / rkey into the SGE list. */
    RDMA_READ,
    /**
     * RDMA READ that, once the data is placed, invalidates the local key
     * {@link SendWorkRequest#invalidateKey()} (the sink's fast-registration key).
     */
    RDMA_READ_WITH_INV,
    /** Invalidate the local fast-registration key {@link SendWorkRequest#invalidateKey()}. */
    LOCAL_INV,
    /**
     * Fast registration: map a buffer window into a {@link FastRegistrationRegion} under its
     * current key (needs {@link DeviceCapabilities#fastRegistration()}).
     */
    REG_MR
}
