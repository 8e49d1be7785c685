package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import javax.security.auth.Subject;
import org.dcache.nfs.ExportTable;
import org.dcache.nfs.FsExport;
import org.dcache.nfs.util.UnixSubjects;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.nfs3.localfs.InodeIndex;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;

/**
 * CallerIdentity - who the call being served acts as, for the decisions nfs4j leaves to the
 * file system without telling it the caller: which set-user-ID and set-group-ID bits a WRITE, a
 * size change or a chmod removes, and which groups a chgrp may give.
 *
 * <p>nfs4j passes the caller to {@code create}, {@code mkdir}, {@code link} and {@code symlink}
 * but not to {@code write} and {@code setattr}; its programs serve a call on the thread that
 * dispatches it, so {@link #around} records the call for the file system on that thread.
 *
 * <p>Root is trusted as root only when every export line matching the client's address keeps
 * root (nfs4j's {@code no_root_squash}) and none squashes everybody: nfs4j squashes by the line
 * its handle names, which the file system cannot see, so it assumes the strictest line. Any
 * flavor but AUTH_SYS, and a call outside {@link #around}, is nobody: in no group, not root.
 *
 * <p>Which objects the call may reach: nfs4j keeps the export a handle belongs to outside the
 * file system's authenticated bytes, so a client could pair a handle it saw with another export's
 * index, and nfs4j would apply that export's rules (rw, no_root_squash) to the object. Two checks
 * close that:
 * <ul>
 * <li>any object the call touches is inside an export the client's address is given, or a
 *     directory on the way to one (those the pseudo file system shows);</li>
 * <li>an object the call reads or modifies is inside the export whose rules nfs4j applies to it:
 *     nfs4j looks that export up by the handle's index ({@link ExportTable#getExport(int,
 *     InetAddress)}, which {@link SwitchableExportTable} reports here through {@link #applying})
 *     just before it calls the file system for a read or a change, so the file system compares the
 *     object's path with that export's. Reading may still go through directories on the way to an
 *     export (the pseudo file system's, for which nfs4j looks up no export); changing may not.
 *     Attributes alone are checked by the first rule only: nfs4j reads them before it looks up the
 *     export.</li>
 * </ul>
 */
public final class CallerIdentity implements SetIdBits.Identity {

    /** Outside any call: no group, not root, and no restriction of what may be reached. */
    private static final CallerIdentity NOBODY = new CallerIdentity(false, -1, new int[0], null, null);
    private static final ThreadLocal<CallerIdentity> CURRENT = new ThreadLocal<>();

    /** How a file system operation uses an object, for {@link #mayUse}. */
    enum Use {
        /** Its attributes only (GETATTR, ACCESS, GETACL). */
        ATTRIBUTES,
        /** Its data or entries (READ, READLINK, READDIR, LOOKUP in it). */
        READ,
        /** A change to it or in it (WRITE, SETATTR, CREATE, REMOVE, RENAME, LINK, SETACL). */
        MODIFY
    }

    private final boolean root;
    private final int gid;
    private final int[] groups;
    /** The real paths of the exports the client is given; null: anything under the root. */
    private final List<Path> exported;
    /** The served directory export paths are relative to; null outside a call. */
    private final Path servedRoot;
    /**
     * The real path of the export nfs4j applies to the object of the file system call about to
     * come (the last one it looked up by index on this call's thread); null: none looked up.
     */
    private Path exportInForce;
    /**
     * This identity is one call's ({@link #around}, {@link #forOneCall}): the file system may
     * keep what a handle located for the rest of the call ({@link #locatedEarlier}).
     */
    private boolean oneCall;
    /** The handle (its bytes) the call located last, and what it located; null when none is kept. */
    private byte[] locatedHandle;
    private InodeIndex.Located<UnixAttributes> located;

    private CallerIdentity(boolean root, int gid, int[] groups, List<Path> exported, Path servedRoot) {
        this.root = root;
        this.gid = gid;
        this.groups = groups;
        this.exported = exported;
        this.servedRoot = servedRoot;
    }

    /** The identity of the call this thread serves (nobody outside {@link #around}). */
    static CallerIdentity current() {
        CallerIdentity identity = CURRENT.get();
        return identity == null ? NOBODY : identity;
    }

    /**
     * A program that records each call's identity for the file system while it serves it.
     *
     * @param program nfs4j's program
     * @param exports the export table that decides squashing and what may be reached
     * @param root the served directory (a real path), which export paths are relative to
     */
    public static RpcDispatchable around(RpcDispatchable program, ExportTable exports, Path root) {
        ClientExports given = new ClientExports(exports, root);
        return new RpcDispatchable() {
            @Override
            public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
                CURRENT.set(of(call, given).forOneCall());
                try {
                    program.dispatchOncRpcCall(call);
                } finally {
                    CURRENT.remove();
                }
            }

            @Override
            public String toString() {
                return "nfs4j " + program.getClass().getSimpleName();
            }
        };
    }

    private static CallerIdentity of(RpcCall call, ClientExports exports) {
        ClientExports.Given given = exports.of(clientOf(call));
        Path root = exports.root;
        RpcAuth credential = call.getCredential();
        if (!(credential instanceof RpcAuthTypeUnix unix) || given.none() || given.squashesAll()) {
            return new CallerIdentity(false, -1, new int[0], given.exported(), root);
        }
        if (unix.uid() == 0 && !given.keepsRoot()) {
            return new CallerIdentity(false, -1, new int[0], given.exported(), root);
        }
        int[] gids = unix.gids() == null ? new int[0] : unix.gids().clone();
        return new CallerIdentity(unix.uid() == 0, unix.gid(), gids, given.exported(), root);
    }

    /**
     * ClientExports - what the export table gives each client address: the export lines matching
     * it (as real paths under the served root) and whether they squash everybody or keep root.
     * Worked out once per address and export table, not per call (a stream over the table and a
     * path per line, per call, was 5 % of the server's samples under NFSv4.1 4 KiB READs); a new
     * table ({@link SwitchableExportTable#replace}) starts afresh. At most {@value #ADDRESSES_MAX}
     * addresses are kept, then all are dropped and worked out again.
     */
    static final class ClientExports {
        static final int ADDRESSES_MAX = 4096;

        /** The lines a client is given, as the identity needs them. */
        record Given(List<Path> exported, boolean none, boolean squashesAll, boolean keepsRoot) {
        }

        private static final Given NOTHING = new Given(List.of(), true, false, false);

        /** The answers worked out from one table: replaced as a whole, so none outlives its table. */
        private record Kept(ExportTable table, ConcurrentHashMap<InetAddress, Given> given) {
        }

        private final ExportTable exports;
        private final Path root;
        private volatile Kept kept = new Kept(null, new ConcurrentHashMap<>());

        ClientExports(ExportTable exports, Path root) {
            this.exports = exports;
            this.root = root;
        }

        Given of(InetAddress client) {
            if (client == null) {
                return NOTHING;
            }
            ExportTable table = exports instanceof SwitchableExportTable switchable ? switchable.current() : exports;
            Kept answers = kept;
            if (answers.table() != table || answers.given().size() >= ADDRESSES_MAX) {
                answers = new Kept(table, new ConcurrentHashMap<>());
                kept = answers;
            }
            Given known = answers.given().get(client);
            if (known == null) {
                known = workOut(table, client);
                answers.given().put(client, known);
            }
            return known;
        }

        private Given workOut(ExportTable table, InetAddress client) {
            List<FsExport> lines = table.exports(client).collect(Collectors.toList());
            List<Path> exported = new ArrayList<>(lines.size());
            for (FsExport line : lines) {
                exported.add(root.resolve(line.getPath().substring(1)).normalize());
            }
            return new Given(List.copyOf(exported), lines.isEmpty(), lines.stream().anyMatch(FsExport::hasAllSquash),
                    lines.stream().allMatch(FsExport::isTrusted));
        }
    }

    /**
     * forOneCall() - this identity serves one call (made for it): the file system may keep what
     * the call's handles located until the call ends or changes something ({@link #locatedEarlier}).
     *
     * @return this identity
     */
    CallerIdentity forOneCall() {
        if (this != NOBODY) {
            oneCall = true;
        }
        return this;
    }

    /**
     * locatedEarlier() - what the file system located for {@code handle} earlier in this call
     * (an NFSv4 COMPOUND's READ finds its file three times: nfs4j's access check, the EOF check
     * and the read; each would be an lstat(2)), unless the call changed something through the
     * file system since ({@link #forgetLocated}). The object's attributes are then those read at
     * the call's first look, as a COMPOUND that changes nothing sees one state of the file.
     *
     * @param handle the handle's bytes, compared by content
     * @return what it located, or null: locate it (outside a call nothing is kept)
     */
    InodeIndex.Located<UnixAttributes> locatedEarlier(byte[] handle) {
        byte[] kept = locatedHandle;
        return kept != null && Arrays.equals(kept, handle) ? located : null;
    }

    /** rememberLocated() - keep what {@code handle} located, for the rest of this call only. */
    void rememberLocated(byte[] handle, InodeIndex.Located<UnixAttributes> object) {
        if (oneCall) {
            locatedHandle = handle;
            located = object;
        }
    }

    /** forgetLocated() - the call changed (or may have changed) something: nothing located is kept. */
    void forgetLocated() {
        locatedHandle = null;
        located = null;
    }

    /**
     * applying() - nfs4j looked up the export whose rules it applies to the object of the file
     * system call it is about to make (null: no such export for this client). Only during a call.
     */
    void applying(FsExport export) {
        if (servedRoot == null) {
            return; // outside a call, or an identity without exports (tests, subjects)
        }
        exportInForce = export == null ? null : servedRoot.resolve(export.getPath().substring(1)).normalize();
    }

    /**
     * mayUse() - whether the call may use the object at this path so (see the class comment):
     * inside an export the client is given or on the way to one, and for a read or a change,
     * inside the export nfs4j applies (a read may also list or look up in a directory on the way
     * to an export).
     */
    boolean mayUse(Path path, Use use) {
        if (exported == null) {
            return true;
        }
        boolean inExport = false;
        boolean onTheWay = false;
        for (Path export : exported) {
            inExport |= path.startsWith(export);
            onTheWay |= export.startsWith(path) && !export.equals(path);
        }
        if (!inExport && !onTheWay) {
            return false;
        }
        return switch (use) {
            case ATTRIBUTES -> true;
            case READ -> exportInForce == null || path.startsWith(exportInForce) || onTheWay;
            case MODIFY -> exportInForce != null && path.startsWith(exportInForce);
        };
    }

    private static InetAddress clientOf(RpcCall call) {
        try {
            InetSocketAddress remote = call.getTransport().getRemoteSocketAddress();
            return remote == null ? null : remote.getAddress();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public boolean isRoot() {
        return root;
    }

    @Override
    public boolean inGroup(int group) {
        if (group == gid && gid >= 0) {
            return true;
        }
        for (int g : groups) {
            if (g == group) {
                return true;
            }
        }
        return false;
    }

    /** The identity of a subject nfs4j passes (already squashed by the export's rules). */
    static CallerIdentity of(Subject subject) {
        long[] secondary = UnixSubjects.getSecondaryGids(subject);
        int[] groups = new int[secondary.length];
        for (int i = 0; i < secondary.length; i++) {
            groups[i] = (int) secondary[i];
        }
        return new CallerIdentity(UnixSubjects.isRootSubject(subject), (int) UnixSubjects.getPrimaryGid(subject),
                groups, null, null);
    }

    /** An AUTH_SYS identity, for tests that call the file system directly. */
    static CallerIdentity of(boolean root, int gid, int... groups) {
        return new CallerIdentity(root, gid, groups.clone(), null, null);
    }

    /**
     * An identity that may reach only these exports (real paths, relative to {@code servedRoot}
     * as nfs4j's export paths are), for tests.
     */
    static CallerIdentity reaching(Path servedRoot, List<Path> exported) {
        return new CallerIdentity(false, -1, new int[0], List.copyOf(exported), servedRoot);
    }

    /** Runs work as an identity (tests and embedders that call the file system directly). */
    static void runAs(CallerIdentity identity, Runnable work) {
        CURRENT.set(identity);
        try {
            work.run();
        } finally {
            CURRENT.remove();
        }
    }
}
