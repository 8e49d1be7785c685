package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs3.ExportRule;
import org.rpcrdma4j.nfs3.Mount3;

/**
 * MountDispatcher - MOUNT v3 (RFC 1813 Appendix I): hands out root handles of exports (or of
 * directories below an export root) to admitted clients, and keeps the advisory mount list.
 *
 * <p>MNT checks the real peer address against the export's rules and answers MNT3ERR_ACCES to
 * anybody else; the same check is repeated on every NFS call, so the mount list grants nothing.
 */
public final class MountDispatcher {

    private static final System.Logger LOG = System.getLogger(MountDispatcher.class.getName());

    private final NfsState state;

    /** A dispatcher over shared state. */
    public MountDispatcher(NfsState state) {
        this.state = state;
    }

    /** Serves a call; the reply is always sent (or the call rejected) before this returns. */
    public void dispatch(RpcCall call) {
        int number = call.getProcedure();
        try {
            switch (number) {
                case Mount3.MOUNTPROC3_NULL: call.reply(Reply.VOID); break;
                case Mount3.MOUNTPROC3_MNT: call.reply(mount(call, decodePath(call))); break;
                case Mount3.MOUNTPROC3_DUMP: call.reply(dump()); break;
                case Mount3.MOUNTPROC3_UMNT:
                    state.mounts().remove(host(call), decodePath(call));
                    call.reply(Reply.VOID);
                    break;
                case Mount3.MOUNTPROC3_UMNTALL:
                    state.mounts().removeAll(host(call));
                    call.reply(Reply.VOID);
                    break;
                case Mount3.MOUNTPROC3_EXPORT: call.reply(exports()); break;
                default: call.failProcedureUnavailable();
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "garbage arguments in MOUNT " + Mount3.procedureName(number) + ": " + e);
            call.failRpcGarbage();
        }
    }

    private static String decodePath(RpcCall call) throws IOException {
        String[] path = new String[1];
        call.retrieveCall(new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream in) throws IOException {
                path[0] = Xdr3.decodeString(in, Mount3.MNTPATHLEN);
            }

            @Override
            public void xdrEncode(XdrEncodingStream out) {
                throw new UnsupportedOperationException("decode-only");
            }
        });
        return path[0];
    }

    private static InetAddress peer(RpcCall call) {
        InetSocketAddress remote = call.getTransport().getRemoteSocketAddress();
        return remote == null ? null : remote.getAddress();
    }

    private static String host(RpcCall call) {
        InetAddress peer = peer(call);
        return peer == null ? "unknown" : peer.getHostAddress();
    }

    private Reply mount(RpcCall call, String dirpath) {
        ExportRoot root = state.exportFor(dirpath);
        if (root == null) {
            return Reply.failed(Mount3.MNT3ERR_NOENT, XdrBody.EMPTY);
        }
        InetAddress peer = peer(call);
        ExportRule rule = peer == null ? null : root.export().ruleFor(peer).orElse(null);
        if (rule == null) {
            LOG.log(Level.INFO, () -> "MNT " + dirpath + " refused to " + peer);
            return Reply.failed(Mount3.MNT3ERR_ACCES, XdrBody.EMPTY);
        }
        MountPoint point;
        state.namespace().readLock().lock();
        try {
            point = MountPoint.resolve(root, dirpath, Caller.of(peer, call.getCredential(), rule));
        } finally {
            state.namespace().readLock().unlock();
        }
        if (point.status() != Mount3.MNT3_OK) {
            return Reply.failed(point.status(), XdrBody.EMPTY);
        }
        state.mounts().add(host(call), dirpath);
        byte[] handle = point.handle();
        return Reply.ok(out -> {
            out.xdrEncodeDynamicOpaque(handle);
            out.xdrEncodeIntVector(new int[] {Mount3.AUTH_SYS});
        });
    }

    private Reply dump() {
        List<MountTable.Entry> entries = state.mounts().snapshot();
        return Reply.bare(out -> {
            for (MountTable.Entry entry : entries) {
                out.xdrEncodeBoolean(true);
                Xdr3.encodeString(out, entry.host());
                Xdr3.encodeString(out, entry.path());
            }
            out.xdrEncodeBoolean(false);
        });
    }

    private Reply exports() {
        List<ExportRoot> roots = state.exports();
        return Reply.bare(out -> {
            for (ExportRoot root : roots) {
                out.xdrEncodeBoolean(true);
                Xdr3.encodeString(out, root.export().path());
                for (ExportRule rule : root.export().rules()) {
                    out.xdrEncodeBoolean(true);
                    Xdr3.encodeString(out, rule.network().toString());
                }
                out.xdrEncodeBoolean(false);
            }
            out.xdrEncodeBoolean(false);
        });
    }
}
