package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
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

    private final ServerKey key;
    private final List<ExportRoot> roots;
    private final Map<Integer, ExportRoot> byId;
    private final long writeVerifier;
    private final MountTable mounts = new MountTable();
    private final DirectoryListings listings = new DirectoryListings();

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
    }

    /** The file handle key. */
    public ServerKey key() {
        return key;
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

    /** Directory listing snapshots for READDIR / READDIRPLUS cookies. */
    public DirectoryListings listings() {
        return listings;
    }
}
