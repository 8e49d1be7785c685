package org.rpcrdma4j.client;

import java.io.IOException;

import org.rpcrdma4j.codec.RpcRdma;

/**
 * The server answered a call with RDMA_ERROR (RFC 8166 §4.5): ERR_VERS with the versions it
 * supports, or ERR_CHUNK. The connection stays usable.
 */
public final class RdmaErrorException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int xid;
    private final int errorCode;
    private final int versLow;
    private final int versHigh;

    RdmaErrorException(int xid, int errorCode, int versLow, int versHigh) {
        super("RDMA_ERROR " + RpcRdma.errorToString(errorCode) + " for xid 0x" + Integer.toHexString(xid)
                + (errorCode == RpcRdma.ERR_VERS ? " (versions " + versLow + ".." + versHigh + ")" : ""));
        this.xid = xid;
        this.errorCode = errorCode;
        this.versLow = versLow;
        this.versHigh = versHigh;
    }

    /** @return the xid of the failed call */
    public int xid() {
        return xid;
    }

    /** @return {@link RpcRdma#ERR_VERS} or {@link RpcRdma#ERR_CHUNK} */
    public int errorCode() {
        return errorCode;
    }

    /** @return for ERR_VERS, the lowest version the server supports; else 0 */
    public int versLow() {
        return versLow;
    }

    /** @return for ERR_VERS, the highest version the server supports; else 0 */
    public int versHigh() {
        return versHigh;
    }
}
