package org.rpcrdma4j.client;

import java.io.IOException;

/**
 * The reply to a call could not be understood: its transport header is invalid, or it reports
 * chunks or lengths the call never offered. The connection stays usable.
 */
public final class MalformedReplyException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int xid;

    MalformedReplyException(int xid, String reason) {
        super("malformed reply to xid 0x" + Integer.toHexString(xid) + ": " + reason);
        this.xid = xid;
    }

    /** @return the xid of the call */
    public int xid() {
        return xid;
    }
}
