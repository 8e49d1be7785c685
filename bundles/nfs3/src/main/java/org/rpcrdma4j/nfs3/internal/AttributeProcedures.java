package org.rpcrdma4j.nfs3.internal;

import java.nio.file.FileStore;
import java.nio.file.Files;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * AttributeProcedures - GETATTR, SETATTR, ACCESS, FSSTAT, FSINFO and PATHCONF
 * (RFC 1813 §3.3.1, 3.3.2, 3.3.4, 3.3.18-20).
 */
public final class AttributeProcedures {

    /**
     * Largest READ and WRITE payload (rtmax, wtmax), and the preferred size (rtpref, wtpref):
     * 1 MiB, as Linux knfsd offers (its svc_max_payload), so clients mount with rsize and
     * wsize of 1 MiB.
     */
    public static final int IO_MAX = 1024 * 1024;
    /** Preferred READDIR count (dtpref). */
    public static final int DIRECTORY_PREFERRED = 32 * 1024;
    /** Most hard links reported by PATHCONF (the ext4 limit). */
    public static final int LINK_MAX = 65000;

    private static final int IO_MULTIPLE = 4096;

    private AttributeProcedures() {
    }

    /** Adds these procedures to a dispatch table. */
    public static void register(ProcedureTable table) {
        table.add(Nfs3.NFSPROC3_GETATTR, FailureArm.VOID, AttributeProcedures::getattr);
        table.add(Nfs3.NFSPROC3_SETATTR, FailureArm.WCC, AttributeProcedures::setattr);
        table.add(Nfs3.NFSPROC3_ACCESS, FailureArm.POST_OP_ATTR, AttributeProcedures::access);
        table.add(Nfs3.NFSPROC3_FSSTAT, FailureArm.POST_OP_ATTR, AttributeProcedures::fsstat);
        table.add(Nfs3.NFSPROC3_FSINFO, FailureArm.POST_OP_ATTR, AttributeProcedures::fsinfo);
        table.add(Nfs3.NFSPROC3_PATHCONF, FailureArm.POST_OP_ATTR, AttributeProcedures::pathconf);
    }

    private static Procedure.Action getattr(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        return request -> {
            FileAttributes attributes = request.resolve(handle).attributes();
            return Reply.ok(attributes::encode);
        };
    }

    private static Procedure.Action setattr(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        SetAttributes set = SetAttributes.decode(in);
        boolean guarded = Xdr3.decodeBool(in);
        long guardCtime = guarded ? Xdr3.decodeTime(in) : 0;
        return request -> {
            Target target = request.resolve(handle).requireWritable();
            return Procedure.attempt(() -> {
                FileAttributes before = target.attributes();
                if (guarded && before.ctimeNanos() != guardCtime) {
                    throw new NfsException(Nfs3.NFS3ERR_NOT_SYNC, "ctime guard does not match");
                }
                AttributeSetter.apply(target.caller(), target.path(), before, set);
                FileAttributes after = target.attributesNow();
                return Reply.ok(out -> Xdr3.encodeWcc(out, before, after));
            }, Procedure.wcc(target));
        };
    }

    private static Procedure.Action access(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        int asked = in.xdrDecodeInt();
        return request -> {
            Target target = request.resolve(handle);
            FileAttributes attributes = target.attributes();
            int granted = Permissions.access(target.caller(), attributes, asked, target.caller().rule().readOnly());
            return Reply.ok(out -> {
                Xdr3.encodePostOpAttr(out, attributes);
                out.xdrEncodeInt(granted);
            });
        };
    }

    private static Procedure.Action fsstat(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        return request -> {
            Target target = request.resolve(handle);
            return Procedure.attempt(() -> {
                FileStore store = Files.getFileStore(target.path());
                long total = store.getTotalSpace();
                long free = store.getUnallocatedSpace();
                long available = store.getUsableSpace();
                return Reply.ok(out -> {
                    Xdr3.encodePostOpAttr(out, target.attributes());
                    out.xdrEncodeLong(total);
                    out.xdrEncodeLong(free);
                    out.xdrEncodeLong(available);
                    // Java does not expose inode counts: report none known, as btrfs does.
                    out.xdrEncodeLong(0);
                    out.xdrEncodeLong(0);
                    out.xdrEncodeLong(0);
                    out.xdrEncodeInt(0); // invarsec: may change at any time
                });
            }, Procedure.postOp(target.attributes()));
        };
    }

    private static Procedure.Action fsinfo(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        return request -> {
            Target target = request.resolve(handle);
            return Reply.ok(out -> {
                Xdr3.encodePostOpAttr(out, target.attributes());
                out.xdrEncodeInt(IO_MAX); // rtmax
                out.xdrEncodeInt(IO_MAX); // rtpref
                out.xdrEncodeInt(IO_MULTIPLE); // rtmult
                out.xdrEncodeInt(IO_MAX); // wtmax
                out.xdrEncodeInt(IO_MAX); // wtpref
                out.xdrEncodeInt(IO_MULTIPLE); // wtmult
                out.xdrEncodeInt(DIRECTORY_PREFERRED); // dtpref
                out.xdrEncodeLong(Long.MAX_VALUE); // maxfilesize
                Xdr3.encodeTime(out, 1); // time_delta: 1 ns
                out.xdrEncodeInt(Nfs3.FSF3_LINK | Nfs3.FSF3_SYMLINK | Nfs3.FSF3_HOMOGENEOUS | Nfs3.FSF3_CANSETTIME);
            });
        };
    }

    private static Procedure.Action pathconf(XdrDecodingStream in) throws java.io.IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        return request -> {
            Target target = request.resolve(handle);
            return Reply.ok(out -> {
                Xdr3.encodePostOpAttr(out, target.attributes());
                out.xdrEncodeInt(LINK_MAX);
                out.xdrEncodeInt(Xdr3.NAME_MAX);
                out.xdrEncodeBoolean(true); // no_trunc: long names are refused
                out.xdrEncodeBoolean(true); // chown_restricted
                out.xdrEncodeBoolean(false); // case_insensitive
                out.xdrEncodeBoolean(true); // case_preserving
            });
        };
    }
}
