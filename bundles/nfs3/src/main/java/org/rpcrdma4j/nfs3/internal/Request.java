package org.rpcrdma4j.nfs3.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.rpcrdma4j.nfs3.ExportRule;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Request - one NFS call being served: the shared state, the caller's real peer address and
 * credential, and the resolution of file handles into {@link Target}s.
 *
 * <p>Every handle is authenticated, its export found, and the export's rules checked against
 * the peer address of this very call, so a client that loses access loses it at once.
 */
public final class Request {

    private final NfsState state;
    private final RpcCall call;
    private final InetAddress peer;

    /** A request for a call received on a transport that reports its peer address. */
    public Request(NfsState state, RpcCall call) {
        this.state = state;
        this.call = call;
        InetSocketAddress remote = call.getTransport().getRemoteSocketAddress();
        this.peer = remote == null ? null : remote.getAddress();
    }

    /** The shared state. */
    public NfsState state() {
        return state;
    }

    /**
     * Resolves a file handle for this caller.
     *
     * @throws NfsException NFS3ERR_BADHANDLE for a handle that is not ours, NFS3ERR_STALE for
     *     one whose export or object is gone, NFS3ERR_ACCES if the peer may not use the export
     */
    public Target resolve(byte[] handle) throws NfsException {
        FileHandle decoded = state.handles().verify(handle);
        ExportRoot root = state.export(decoded.exportId());
        if (root == null) {
            throw new NfsException(Nfs3.NFS3ERR_STALE, "export " + decoded.exportId() + " is no longer served");
        }
        Caller caller = callerFor(root);
        ExportRoot.Located located = root.locate(decoded);
        return new Target(root, caller, located.path(), located.attributes());
    }

    /**
     * The identity of this call on an export.
     *
     * @throws NfsException NFS3ERR_ACCES if no rule of the export admits the peer
     */
    public Caller callerFor(ExportRoot root) throws NfsException {
        ExportRule rule = peer == null ? null : root.export().ruleFor(peer).orElse(null);
        if (rule == null) {
            throw new NfsException(Nfs3.NFS3ERR_ACCES, "peer " + peer + " is not admitted to " + root.export().path());
        }
        return Caller.of(peer, call.getCredential(), rule);
    }
}
