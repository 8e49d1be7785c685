package org.rpcrdma4j.nfs3.internal;

/**
 * FailureArm - the shape of a procedure's failure result when no attributes are known
 * (RFC 1813 §3.3): every optional attribute absent. Used for failures found before the
 * procedure could read any, such as a bad handle.
 */
public enum FailureArm {
    /** GETATTR: nothing follows the status. */
    VOID(XdrBody.EMPTY),
    /** LOOKUP, ACCESS, READLINK, READ, READDIR(PLUS), FSSTAT, FSINFO, PATHCONF: one post_op_attr. */
    POST_OP_ATTR(out -> out.xdrEncodeBoolean(false)),
    /** SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, COMMIT: one wcc_data. */
    WCC(Xdr3::encodeEmptyWcc),
    /** RENAME: fromdir_wcc and todir_wcc. */
    TWO_WCC(out -> {
        Xdr3.encodeEmptyWcc(out);
        Xdr3.encodeEmptyWcc(out);
    }),
    /** LINK: file_attributes (post_op_attr) and linkdir_wcc. */
    POST_OP_ATTR_AND_WCC(out -> {
        out.xdrEncodeBoolean(false);
        Xdr3.encodeEmptyWcc(out);
    });

    private final XdrBody body;

    FailureArm(XdrBody body) {
        this.body = body;
    }

    /** The failure arm with no attributes. */
    public XdrBody body() {
        return body;
    }
}
