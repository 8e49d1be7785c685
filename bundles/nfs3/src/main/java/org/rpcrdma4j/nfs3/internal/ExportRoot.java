package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.localfs.InodeIndex;
import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * ExportRoot - one served export: its id, its real root directory, and the
 * {@link InodeIndex} that maps the (fsid, fileid) of a handle back to a path inside the export.
 * A handle whose inode is nowhere in the export is stale. That the path found still holds when
 * the call's system calls resolve it again is the service's namespace lock's job
 * ({@link NfsState#namespace()}).
 *
 * <p>Thread-safe.
 */
public final class ExportRoot {

    /** How the index reads this server's attributes. */
    private static final InodeIndex.Attributes<FileAttributes> UNIX_ATTRIBUTES =
            InodeIndex.Attributes.of(FileAttributes::read, FileAttributes::dev, FileAttributes::ino);

    private final Export export;
    private final int id;
    private final Path root;
    private final ServerKey key;
    private final InodeIndex<FileAttributes> index;

    /** A path inside the export with its attributes as just read. */
    public record Located(Path path, FileAttributes attributes) {
    }

    /**
     * Opens an export.
     *
     * @throws IllegalArgumentException naming the export if its directory is not a directory
     * @throws IOException if the directory cannot be read
     */
    public ExportRoot(Export export, ServerKey key) throws IOException {
        if (!Files.isDirectory(export.directory(), LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("export directory " + export.directory() + " of " + export.path()
                    + ": not an existing directory (or a symbolic link)");
        }
        this.export = export;
        this.id = idOf(export.path());
        this.root = export.directory().toRealPath();
        this.key = key;
        this.index = new InodeIndex<>(root, FileAttributes.read(root), UNIX_ATTRIBUTES);
    }

    /** The stable id of an export: the first four bytes of SHA-256 of its client-visible path. */
    public static int idOf(String exportPath) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(exportPath.getBytes(StandardCharsets.UTF_8));
            return ((digest[0] & 0xff) << 24) | ((digest[1] & 0xff) << 16) | ((digest[2] & 0xff) << 8) | (digest[3] & 0xff);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
        }
    }

    /** The configuration. */
    public Export export() {
        return export;
    }

    /** The id carried in this export's handles. */
    public int id() {
        return id;
    }

    /** The real path of the export's root directory. */
    public Path root() {
        return root;
    }

    /** Makes the handle of a path of this export, remembering the path for later lookups. */
    public byte[] handleOf(Path path, FileAttributes attributes) {
        index.remember(path, attributes);
        return FileHandle.of(id, attributes).encode(key);
    }

    /**
     * Finds the object a handle of this export names.
     *
     * @throws NfsException NFS3ERR_STALE if it no longer exists inside the export
     */
    public Located locate(FileHandle handle) throws NfsException {
        InodeIndex.Located<FileAttributes> found = index.locate(handle.fsid(), handle.fileid(), handle::names);
        if (found == null) {
            throw new NfsException(Nfs3.NFS3ERR_STALE, "no object (" + handle.fsid() + ", " + handle.fileid()
                    + ") in export " + export.path());
        }
        return new Located(found.path(), found.attributes());
    }

    /** Forgets a path that was removed (the inode may live on under another name: hard links). */
    public void forget(Path path, FileAttributes attributes) {
        index.forget(path, attributes);
    }

    /**
     * Follows a rename: the object moved and, for a directory, everything below it.
     */
    public void moved(Path from, Path to, FileAttributes object) {
        index.moved(from, to, object, object.isDirectory());
    }

    /** Whether a path lies inside this export (lexically). */
    public boolean contains(Path path) {
        return index.contains(path);
    }
}
