package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.OpenFiles;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import org.rpcrdma4j.nfs3.localfs.ServerKey;
import java.lang.System.Logger.Level;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rpcrdma4j.nfs3.Export;

/**
 * NfsState - what the NFS and MOUNT programs of one service share: the exports, the file
 * handle key, the write verifier and the mount list.
 *
 * <p>Immutable after construction apart from the (thread-safe) export indexes and mount list.
 */
public final class NfsState {

    private static final System.Logger LOG = System.getLogger(NfsState.class.getName());

    private final ServerKey key;
    private final VerifiedHandles handles;
    private final List<ExportRoot> roots;
    private final Map<Integer, ExportRoot> byId;
    private final long writeVerifier;
    private final MountTable mounts = new MountTable();
    private final DirectoryListings listings = new DirectoryListings();
    private final OpenFiles openFiles = new OpenFiles();
    private final ReadWriteLock namespace = new ReentrantReadWriteLock();

    /**
     * Opens the exports and the key.
     *
     * @throws IllegalArgumentException naming the setting if two exports share a path or id, or
     *     an export directory does not exist
     * @throws IOException if the key cannot be loaded or created
     */
    public NfsState(List<Export> exports, Path stateDirectory) throws IOException {
        if (exports == null || exports.isEmpty()) {
            throw new IllegalArgumentException("exports: at least one export is required");
        }
        if (stateDirectory == null || !stateDirectory.isAbsolute()) {
            throw new IllegalArgumentException("state directory '" + stateDirectory + "': must be absolute");
        }
        this.key = ServerKey.loadOrCreate(stateDirectory);
        this.handles = new VerifiedHandles(key);
        List<ExportRoot> opened = new ArrayList<>();
        Map<Integer, ExportRoot> ids = new HashMap<>();
        for (Export export : exports) {
            ExportRoot root = new ExportRoot(export, key);
            ExportRoot clash = ids.putIfAbsent(root.id(), root);
            if (clash != null) {
                throw new IllegalArgumentException("export path " + export.path() + ": duplicates (or hashes like) "
                        + clash.export().path());
            }
            opened.add(root);
        }
        this.roots = Collections.unmodifiableList(opened);
        this.byId = Map.copyOf(ids);
        this.writeVerifier = new SecureRandom().nextLong();
        logPathCharset();
    }

    /**
     * Says once per service how this JVM maps file names: names are bytes whatever the locale
     * ({@link PathBytes}), but outside a UTF-8 locale every name beyond ASCII takes the slower
     * URI route and the JVM's own messages show such names as '?'.
     */
    private static void logPathCharset() {
        if (!PathBytes.pathCharsetIsUtf8()) {
            LOG.log(Level.WARNING, () -> "file names: this JVM maps paths with " + PathBytes.PATH_CHARSET
                    + " (sun.jnu.encoding, from the locale: LC_ALL=" + System.getenv("LC_ALL") + ", LC_CTYPE="
                    + System.getenv("LC_CTYPE") + ", LANG=" + System.getenv("LANG") + "), not UTF-8; names are"
                    + " still served byte-exact, those beyond ASCII through a slower path. Start the JVM with"
                    + " LC_ALL=C.UTF-8 (the assembly's bin/setenv does) for the direct one.");
        }
    }

    /**
     * The namespace lock of this service, closing the window between a handle's check
     * ({@link ExportRoot#locate}: no symbolic link above the object) and the path-based system
     * calls that follow, in which the kernel would follow a symbolic link swapped in for a
     * directory of the path. Java has no openat(2)-relative mkdir, symlink, link or readlink,
     * so paths are resolved from the export root on every system call; what keeps them inside
     * is that no name of the namespace is taken away while a call works on it. Every NFS and
     * MNT call holds the read lock from its first check to its last system call; REMOVE, RMDIR
     * and RENAME - the only procedures that can take a directory's name away so that another
     * object (a symbolic link) can take it - hold the write lock. Procedures that only add
     * names cannot redirect an existing path and run concurrently. Changes made behind the
     * server's back (local users, another file server on the same tree) are not covered.
     */
    public ReadWriteLock namespace() {
        return namespace;
    }

    /** The file handle key. */
    public ServerKey key() {
        return key;
    }

    /** The check of the file handles clients present: under {@link #key()}, with its verdicts remembered. */
    public VerifiedHandles handles() {
        return handles;
    }

    /** The exports, in configuration order. */
    public List<ExportRoot> exports() {
        return roots;
    }

    /** The export with this id, or null. */
    public ExportRoot export(int id) {
        return byId.get(id);
    }

    /** The export whose client-visible path is a prefix (component-wise) of this path, longest first, or null. */
    public ExportRoot exportFor(String path) {
        ExportRoot best = null;
        for (ExportRoot root : roots) {
            String prefix = root.export().path();
            boolean matches = path.equals(prefix) || prefix.equals("/")
                    || (path.startsWith(prefix) && path.charAt(prefix.length()) == '/');
            if (matches && (best == null || prefix.length() > best.export().path().length())) {
                best = root;
            }
        }
        return best;
    }

    /** The write verifier of this server instance: random, so it changes on every restart. */
    public long writeVerifier() {
        return writeVerifier;
    }

    /** Who mounted what (MOUNT's DUMP). */
    public MountTable mounts() {
        return mounts;
    }

    /** The file cache of READ. */
    public OpenFiles openFiles() {
        return openFiles;
    }

    /** Directory listing snapshots for READDIR / READDIRPLUS cookies. */
    public DirectoryListings listings() {
        return listings;
    }
}
