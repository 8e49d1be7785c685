package org.rpcrdma4j.client;

/** How a call's RPC message travels (RFC 8166 §3.5). */
public enum CallMode {
    /** RDMA_MSG when header and inline message fit the server's receive size, else RDMA_NOMSG. */
    AUTO,
    /** Always RDMA_MSG; the call fails when it does not fit inline. */
    INLINE,
    /** Always RDMA_NOMSG: the message (minus its DDP items) in a position-zero read chunk. */
    NOMSG
}
