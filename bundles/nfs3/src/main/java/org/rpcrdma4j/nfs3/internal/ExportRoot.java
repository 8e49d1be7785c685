package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * ExportRoot - one served export: its id, its real root directory, and the index that maps the
 * (fsid, fileid) of a handle back to a path inside the export.
 *
 * <p>The index is filled as handles are handed out (MNT, LOOKUP, CREATE, READDIRPLUS...). A
 * handle it does not know - the normal case after a restart - is found by walking the export
 * tree without following symbolic links, remembering everything seen on the way, until the inode
 * turns up; a handle whose inode is nowhere in the tree is stale, and remembered as such (until
 * this server hands out a handle for that inode again) so stale handles cost one walk, not one
 * per call. Every path taken from the index
 * is checked before use: its attributes must still name the handle's inode and type, and its
 * parent must resolve, symbolic links followed, to itself - so a directory swapped for a
 * symbolic link cannot lead outside the export. That the check still holds when the call's
 * system calls resolve the path again is the service's namespace lock's job
 * ({@link NfsState#namespace()}).
 *
 * <p>Thread-safe; walks are serialized.
 */
public final class ExportRoot {

    /** Bound of {@link #missing}; the set is cleared when it would grow beyond. */
    private static final int MISSING_MAX = 4096;
    /**
     * Bound of the index (about 200 bytes an entry): beyond it the index starts over with the
     * root alone, and unknown handles are found again by walking.
     */
    private static final int INDEX_MAX = 1 << 20;

    private final Export export;
    private final int id;
    private final Path root;
    private final ServerKey key;
    private final InodeKey rootInode;
    private final Map<InodeKey, Path> index = new ConcurrentHashMap<>();
    /** Inodes a complete walk did not find: stale handles answered without walking again. */
    private final Set<InodeKey> missing = ConcurrentHashMap.newKeySet();
    private final Object walkLock = new Object();

    private record InodeKey(long fsid, long fileid) {
    }

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
        FileAttributes attributes = FileAttributes.read(root);
        this.rootInode = new InodeKey(attributes.dev(), attributes.ino());
        index.put(rootInode, root);
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
        InodeKey inode = new InodeKey(attributes.dev(), attributes.ino());
        remember(inode, path);
        missing.remove(inode);
        return FileHandle.of(id, attributes).encode(key);
    }

    /**
     * Finds the object a handle of this export names.
     *
     * @throws NfsException NFS3ERR_STALE if it no longer exists inside the export
     */
    public Located locate(FileHandle handle) throws NfsException {
        InodeKey inode = new InodeKey(handle.fsid(), handle.fileid());
        Path known = index.get(inode);
        if (known != null) {
            FileAttributes attributes = verify(known, handle);
            if (attributes != null) {
                return new Located(known, attributes);
            }
            index.remove(inode, known);
        }
        Path found = search(handle, inode);
        FileAttributes attributes = found == null ? null : verify(found, handle);
        if (attributes == null) {
            throw new NfsException(Nfs3.NFS3ERR_STALE, "no object " + inode + " in export " + export.path());
        }
        return new Located(found, attributes);
    }

    private void remember(InodeKey inode, Path path) {
        if (index.size() >= INDEX_MAX) {
            index.clear();
            index.put(rootInode, root);
        }
        index.put(inode, path);
    }

    /** Forgets a path that was removed (the inode may live on under another name: hard links). */
    public void forget(Path path, FileAttributes attributes) {
        if (attributes != null) {
            index.remove(new InodeKey(attributes.dev(), attributes.ino()), path);
        }
    }

    /**
     * Follows a rename: the object moved and, for a directory, everything below it. A file's
     * entry is updated in place; a directory's rename rewrites the index entries under it.
     */
    public void moved(Path from, Path to, FileAttributes object) {
        if (!object.isDirectory()) {
            index.replace(new InodeKey(object.dev(), object.ino()), from, to);
            return;
        }
        for (Map.Entry<InodeKey, Path> entry : index.entrySet()) {
            Path path = entry.getValue();
            if (path.startsWith(from)) {
                index.replace(entry.getKey(), path, to.resolve(from.relativize(path)));
            }
        }
    }

    /** Whether a path lies inside this export (lexically). */
    public boolean contains(Path path) {
        return path.normalize().startsWith(root);
    }

    private FileAttributes verify(Path path, FileHandle handle) {
        try {
            FileAttributes attributes = FileAttributes.read(path);
            if (!handle.names(attributes)) {
                return null;
            }
            if (!path.equals(root) && !path.getParent().toRealPath().equals(path.getParent())) {
                return null;
            }
            return contains(path) ? attributes : null;
        } catch (IOException e) {
            return null;
        }
    }

    private Path search(FileHandle handle, InodeKey inode) {
        synchronized (walkLock) {
            Path known = index.get(inode);
            if (known != null && verify(known, handle) != null) {
                return known;
            }
            if (missing.contains(inode)) {
                return null;
            }
            Path[] found = new Path[1];
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return visit(dir);
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        return visit(file);
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        return FileVisitResult.CONTINUE;
                    }

                    private FileVisitResult visit(Path path) {
                        FileAttributes attributes = Xdr3.readQuietly(path);
                        if (attributes == null) {
                            return FileVisitResult.CONTINUE;
                        }
                        InodeKey seen = new InodeKey(attributes.dev(), attributes.ino());
                        if (!index.containsKey(seen)) {
                            remember(seen, path);
                        }
                        if (seen.equals(inode) && handle.names(attributes)) {
                            found[0] = path;
                            return FileVisitResult.TERMINATE;
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                return null;
            }
            if (found[0] == null) {
                if (missing.size() >= MISSING_MAX) {
                    missing.clear();
                }
                missing.add(inode);
            }
            return found[0];
        }
    }
}
