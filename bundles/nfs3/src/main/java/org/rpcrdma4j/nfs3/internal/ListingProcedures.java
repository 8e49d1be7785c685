package org.rpcrdma4j.nfs3.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * ListingProcedures - READDIR and READDIRPLUS (RFC 1813 §3.3.16, 3.3.17).
 *
 * <p>Cookies and the cookie verifier come from {@link DirectoryListings}. A reply holds as many
 * entries as fit the client's byte budgets, computed from the exact XDR sizes: {@code count}
 * (READDIR) or {@code maxcount} bounds the whole reply, READDIRPLUS's {@code dircount} bounds
 * the fileid + name + cookie part. A budget too small for one entry is NFS3ERR_TOOSMALL.
 * ".." of the export root is the root itself: nothing above the export is ever named.
 */
public final class ListingProcedures {

    /** status + post_op_attr(present) + cookieverf + end of list + eof. */
    private static final int REPLY_OVERHEAD = 4 + 4 + FileAttributes.FATTR3_BYTES + 8 + 4 + 4;
    /** post_op_attr(present) + post_op_fh3(present) of one READDIRPLUS entry. */
    private static final int PLUS_EXTRA = 4 + FileAttributes.FATTR3_BYTES + 4 + 4 + FileHandle.BYTES;

    /** One entry chosen for a reply. */
    private record Entry(long fileid, FileName name, long cookie, FileAttributes attributes, byte[] handle) {
    }

    /** The decoded arguments of either procedure. */
    private record Arguments(byte[] dir, long cookie, long verifier, int dircount, int maxcount, boolean plus) {
    }

    private ListingProcedures() {
    }

    /** Adds these procedures to a dispatch table. */
    public static void register(ProcedureTable table) {
        table.add(Nfs3.NFSPROC3_READDIR, FailureArm.POST_OP_ATTR, in -> {
            byte[] dir = Xdr3.decodeHandle(in);
            long cookie = in.xdrDecodeLong();
            long verifier = Xdr3.decodeVerifier(in);
            int count = in.xdrDecodeInt();
            return listing(new Arguments(dir, cookie, verifier, count, count, false));
        });
        table.add(Nfs3.NFSPROC3_READDIRPLUS, FailureArm.POST_OP_ATTR, in -> {
            byte[] dir = Xdr3.decodeHandle(in);
            long cookie = in.xdrDecodeLong();
            long verifier = Xdr3.decodeVerifier(in);
            int dircount = in.xdrDecodeInt();
            int maxcount = in.xdrDecodeInt();
            return listing(new Arguments(dir, cookie, verifier, dircount, maxcount, true));
        });
    }

    private static Procedure.Action listing(Arguments args) {
        return request -> {
            Target directory = request.resolve(args.dir());
            return Procedure.attempt(() -> {
                directory.requireDirectory();
                Permissions.require(directory.caller(), directory.attributes(), Permissions.READ);
                DirectoryListings.Listing listing =
                        request.state().listings().listing(directory.path(), directory.attributes());
                if (args.cookie() != 0 && args.verifier() != listing.verifier()) {
                    throw new NfsException(Nfs3.NFS3ERR_BAD_COOKIE, "cookie verifier is stale");
                }
                if (Long.compareUnsigned(args.cookie(), listing.size()) > 0) {
                    throw new NfsException(Nfs3.NFS3ERR_BAD_COOKIE, "cookie beyond the listing");
                }
                List<Entry> entries = new ArrayList<>();
                boolean eof = select(directory, listing, args, entries);
                FileAttributes attributes = directory.attributes();
                return Reply.ok(out -> encode(out, attributes, listing.verifier(), entries, eof, args.plus()));
            }, Procedure.postOp(directory.attributes()));
        };
    }

    /** Picks the entries from the cookie on that fit the budgets; returns whether the listing ended. */
    private static boolean select(Target directory, DirectoryListings.Listing listing, Arguments args,
            List<Entry> entries) throws NfsException {
        long replyBytes = REPLY_OVERHEAD;
        long directoryBytes = 0;
        int position = (int) args.cookie();
        for (; position < listing.size(); position++) {
            FileName name = listing.nameAt(position);
            Path path = pathOf(directory, name);
            FileAttributes attributes = Xdr3.readQuietly(path);
            if (attributes == null) {
                continue; // removed since the snapshot
            }
            int nameBytes = 4 + (int) Xdr.roundUp(name.length());
            int plainBytes = 4 + 8 + nameBytes + 8;
            int entryBytes = args.plus() ? plainBytes + PLUS_EXTRA : plainBytes;
            if (replyBytes + entryBytes > Integer.toUnsignedLong(args.maxcount())
                    || (args.plus() && directoryBytes + plainBytes > Integer.toUnsignedLong(args.dircount()))) {
                if (entries.isEmpty()) {
                    throw new NfsException(Nfs3.NFS3ERR_TOOSMALL, "budget holds no entry");
                }
                return false;
            }
            replyBytes += entryBytes;
            directoryBytes += plainBytes;
            byte[] handle = args.plus() ? directory.root().handleOf(path, attributes) : null;
            entries.add(new Entry(attributes.ino(), name, position + 1L, attributes, handle));
        }
        return true;
    }

    private static Path pathOf(Target directory, FileName name) {
        if (name.equals(FileName.DOT)) {
            return directory.path();
        }
        if (name.equals(FileName.DOT_DOT)) {
            return directory.path().equals(directory.root().root()) ? directory.path() : directory.path().getParent();
        }
        return directory.child(name);
    }

    private static void encode(XdrEncodingStream out, FileAttributes directory, long verifier, List<Entry> entries,
            boolean eof, boolean plus) {
        Xdr3.encodePostOpAttr(out, directory);
        Xdr3.encodeVerifier(out, verifier);
        for (Entry entry : entries) {
            out.xdrEncodeBoolean(true);
            out.xdrEncodeLong(entry.fileid());
            entry.name().encode(out);
            out.xdrEncodeLong(entry.cookie());
            if (plus) {
                Xdr3.encodePostOpAttr(out, entry.attributes());
                Xdr3.encodePostOpHandle(out, entry.handle());
            }
        }
        out.xdrEncodeBoolean(false);
        out.xdrEncodeBoolean(eof);
    }
}
