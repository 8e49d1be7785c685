package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * Reply - an encode-only result: a status word (nfsstat3 or mountstat3) and the arm of the
 * result union that goes with it.
 */
public final class Reply implements XdrAble {

    /** The void reply of the NULL procedures. */
    public static final XdrAble VOID = new Reply(-1, XdrBody.EMPTY);

    private final int status;
    private final XdrBody body;

    private Reply(int status, XdrBody body) {
        this.status = status;
        this.body = body;
    }

    /** A reply with status 0 (NFS3_OK / MNT3_OK) and the success arm. */
    public static Reply ok(XdrBody body) {
        return new Reply(0, body);
    }

    /** A reply with a failure status and the failure arm. */
    public static Reply failed(int status, XdrBody body) {
        return new Reply(status, body);
    }

    /** A reply that is only a body, with no status word (MOUNT's DUMP and EXPORT). */
    public static Reply bare(XdrBody body) {
        return new Reply(-1, body);
    }

    /** The status word, or -1 for a reply without one. */
    public int status() {
        return status;
    }

    @Override
    public void xdrEncode(XdrEncodingStream out) throws OncRpcException, IOException {
        if (status >= 0) {
            out.xdrEncodeInt(status);
        }
        body.encode(out);
    }

    /** Replies are never decoded by the server. */
    @Override
    public void xdrDecode(XdrDecodingStream in) {
        throw new UnsupportedOperationException("a reply is encode-only");
    }
}
