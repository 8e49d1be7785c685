package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * ObjectCreator - creates files, directories and symbolic links as the caller: owned by the
 * caller's uid, with the group of the directory when it is set-group-ID (else the caller's
 * gid), and the requested mode (the server's umask does not apply: the client applied its own)
 * under the set-group-ID rules of {@link SetIdBits#creationMode}.
 *
 * <p>If anything after the creation itself fails, the new object is removed again, so a failed
 * call leaves no half-initialized object behind.
 */
public final class ObjectCreator {

    /** Mode of a new regular file when the client sets none. */
    public static final int DEFAULT_FILE_MODE = 0644;
    /** Mode of a new directory when the client sets none. */
    public static final int DEFAULT_DIRECTORY_MODE = 0755;

    /** How to bring the object into existence (createFile, createDirectory...). */
    @FunctionalInterface
    public interface Creation {
        /** Creates the object at the path, failing if it exists. */
        void create(Path path) throws IOException;
    }

    private ObjectCreator() {
    }

    /**
     * Creates an object in a directory and gives it to the caller.
     *
     * @param directory the parent; write and search permission on it are checked here
     * @param path the new entry, a checked child of the directory
     * @param creation the creating call
     * @param defaultMode mode when {@code set} has none (ignored for symbolic links)
     * @param set the client's initial attributes
     * @return the attributes of the new object
     */
    public static FileAttributes create(Target directory, Path path, Creation creation, int defaultMode,
            SetAttributes set) throws NfsException, IOException {
        Permissions.requireModifyDirectory(directory.caller(), directory.attributes());
        creation.create(path);
        try {
            Caller caller = directory.caller();
            int gid = SetIdBits.creationGroup(directory.attributes().mode(), directory.attributes().gid(), caller.gid());
            Files.setAttribute(path, "unix:uid", caller.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            FileAttributes created = FileAttributes.read(path);
            if (created.type() != Nfs3.NF3LNK) {
                int mode = SetIdBits.creationMode(caller, directory.attributes().mode(), created.isDirectory(), gid,
                        set.mode() != null ? set.mode() : defaultMode);
                Files.setAttribute(path, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
                created = FileAttributes.read(path);
            }
            SetAttributes rest = new SetAttributes(null, set.uid(), set.gid(), set.size(), set.atime(), set.mtime());
            if (!rest.isEmpty()) {
                AttributeSetter.apply(caller, path, created, rest);
                created = FileAttributes.read(path);
            }
            return created;
        } catch (NfsException | IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
    }
}
