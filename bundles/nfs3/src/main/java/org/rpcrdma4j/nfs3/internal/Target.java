package org.rpcrdma4j.nfs3.internal;

import java.nio.file.Path;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Target - a resolved file handle: the export, the caller's identity on it, the object's path
 * and its attributes as read when the handle was resolved.
 *
 * <p>Names are resolved relative to a directory target only after {@link Names} checks, so
 * the resulting path is always a direct child of a directory inside the export.
 */
public record Target(ExportRoot root, Caller caller, Path path, FileAttributes attributes) {

    /**
     * Requires a read-write export for a modifying procedure.
     *
     * @throws NfsException NFS3ERR_ROFS on a read-only export
     */
    public Target requireWritable() throws NfsException {
        if (caller.rule().readOnly()) {
            throw new NfsException(Nfs3.NFS3ERR_ROFS, root.export().path() + " is read-only for " + caller.peer());
        }
        return this;
    }

    /**
     * Requires a directory.
     *
     * @throws NfsException NFS3ERR_NOTDIR otherwise
     */
    public Target requireDirectory() throws NfsException {
        if (!attributes.isDirectory()) {
            throw new NfsException(Nfs3.NFS3ERR_NOTDIR, path + " is not a directory");
        }
        return this;
    }

    /**
     * Requires a regular file.
     *
     * @throws NfsException NFS3ERR_ISDIR for a directory, NFS3ERR_INVAL for anything else
     */
    public Target requireRegularFile() throws NfsException {
        if (attributes.isDirectory()) {
            throw new NfsException(Nfs3.NFS3ERR_ISDIR, path + " is a directory");
        }
        if (!attributes.isRegularFile()) {
            throw new NfsException(Nfs3.NFS3ERR_INVAL, path + " is not a regular file");
        }
        return this;
    }

    /** The path of an entry of this directory; the name MUST have passed a {@link Names} check. */
    public Path child(FileName name) {
        return name.resolveIn(path);
    }

    /** The attributes now (null if unreadable), for post-operation attributes. */
    public FileAttributes attributesNow() {
        return Xdr3.readQuietly(path);
    }

    /**
     * Requires a second target to live in the same export (RENAME, LINK).
     *
     * @throws NfsException NFS3ERR_XDEV otherwise
     */
    public void requireSameExport(Target other) throws NfsException {
        if (other.root != root) {
            throw new NfsException(Nfs3.NFS3ERR_XDEV, "objects in different exports");
        }
    }
}
