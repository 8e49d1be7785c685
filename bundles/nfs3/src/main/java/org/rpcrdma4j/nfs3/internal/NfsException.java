package org.rpcrdma4j.nfs3.internal;

import org.rpcrdma4j.nfs3.Nfs3;

/**
 * NfsException - a procedure failed with an nfsstat3 code.
 *
 * <p>Carries the failure arm of the result when the procedure could compute one (for example
 * the directory's wcc_data); otherwise the dispatcher sends the arm with no attributes, which
 * RFC 1813 allows. Never carries a stack trace to the client: only the status goes on the wire.
 */
public final class NfsException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final transient XdrBody failureBody;

    /** A failure with the given nfsstat3 and the default failure arm. */
    public NfsException(int status, String message) {
        this(status, message, null);
    }

    private NfsException(int status, String message, XdrBody failureBody) {
        super(Nfs3.statusName(status) + ": " + message, null, false, false);
        this.status = status;
        this.failureBody = failureBody;
    }

    /** The nfsstat3 code. */
    public int status() {
        return status;
    }

    /** The failure arm computed by the procedure, or null for the default one. */
    public XdrBody failureBody() {
        return failureBody;
    }

    /** The same failure carrying the given failure arm (e.g. wcc_data computed after it). */
    public NfsException withBody(XdrBody body) {
        return new NfsException(status, getMessage(), body);
    }
}
