package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Creations - the UNCHECKED and EXCLUSIVE modes of CREATE (RFC 1813 §3.3.8); GUARDED is a
 * plain create-new.
 *
 * <p>EXCLUSIVE keeps the client's 8-byte verifier in the new file's times (high word as atime
 * seconds, low word as mtime seconds), as Linux knfsd does, so a retransmitted CREATE finds
 * its own file and succeeds while another client's CREATE of the same name gets
 * NFS3ERR_EXIST. The client then sets the real attributes with SETATTR.
 */
public final class Creations {

    /** Mode of a file created EXCLUSIVE, until the client's SETATTR. */
    public static final int EXCLUSIVE_MODE = 0600;

    private Creations() {
    }

    /**
     * UNCHECKED: create, or if a regular file exists, apply only the size (open with O_TRUNC),
     * as Linux knfsd does: the other attributes are for a new file and MUST NOT change an
     * existing one (a non-owner with write permission could not chmod it anyway).
     */
    public static FileAttributes unchecked(Target directory, Path path, SetAttributes set)
            throws NfsException, IOException {
        FileAttributes current = existing(path);
        if (current == null) {
            try {
                return ObjectCreator.create(directory, path, Files::createFile, ObjectCreator.DEFAULT_FILE_MODE, set);
            } catch (FileAlreadyExistsException raced) {
                current = FileAttributes.read(path);
            }
        }
        if (!current.isRegularFile()) {
            throw new NfsException(Nfs3.NFS3ERR_EXIST, "an object that is not a file exists");
        }
        if (set.size() != null) {
            AttributeSetter.apply(directory.caller(), path, current,
                    new SetAttributes(null, null, null, set.size(), null, null));
        }
        return FileAttributes.read(path);
    }

    private static FileAttributes existing(Path path) throws IOException {
        try {
            return FileAttributes.read(path);
        } catch (NoSuchFileException absent) {
            return null;
        }
    }

    /** EXCLUSIVE: create with the verifier in the times, or recognize our own earlier create. */
    public static FileAttributes exclusive(Target directory, Path path, long verifier)
            throws NfsException, IOException {
        long atimeSeconds = verifier >>> 32;
        long mtimeSeconds = verifier & 0xffffffffL;
        try {
            ObjectCreator.create(directory, path, Files::createFile, EXCLUSIVE_MODE, SetAttributes.NONE);
        } catch (FileAlreadyExistsException exists) {
            FileAttributes current = FileAttributes.read(path);
            if (current.isRegularFile() && current.atimeNanos() == TimeUnit.SECONDS.toNanos(atimeSeconds)
                    && current.mtimeNanos() == TimeUnit.SECONDS.toNanos(mtimeSeconds)) {
                return current;
            }
            throw new NfsException(Nfs3.NFS3ERR_EXIST, "exists, created with another verifier");
        }
        Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setTimes(FileTime.from(mtimeSeconds, TimeUnit.SECONDS), FileTime.from(atimeSeconds, TimeUnit.SECONDS), null);
        return FileAttributes.read(path);
    }
}
