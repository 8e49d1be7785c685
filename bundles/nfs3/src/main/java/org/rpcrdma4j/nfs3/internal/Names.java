package org.rpcrdma4j.nfs3.internal;

import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Names - checks of the file name components clients send (filename3).
 *
 * <p>A component names one entry of one directory: it is never empty and never contains '/'
 * or NUL, so it cannot climb out of the directory it is resolved in. Any other bytes are a
 * name, UTF-8 or not, as in Linux knfsd. "." and ".." are refused
 * everywhere except LOOKUP, with the codes Linux knfsd uses.
 */
public final class Names {

    private Names() {
    }

    /**
     * Checks a name a procedure is about to create (CREATE, MKDIR, SYMLINK, MKNOD, LINK).
     *
     * @throws NfsException NFS3ERR_EXIST for "." and "..", otherwise as {@link #requireComponent}
     */
    public static void requireNewName(FileName name) throws NfsException {
        requireComponent(name);
        if (isDot(name)) {
            throw new NfsException(Nfs3.NFS3ERR_EXIST, name + " always exists");
        }
    }

    /**
     * Checks a name a procedure is about to remove (REMOVE, RMDIR).
     *
     * @throws NfsException NFS3ERR_INVAL for "." and NFS3ERR_NOTEMPTY for ".." (as rmdir(2) on Linux),
     *     otherwise as {@link #requireComponent}
     */
    public static void requireRemovableName(FileName name) throws NfsException {
        requireComponent(name);
        if (name.equals(FileName.DOT)) {
            throw new NfsException(Nfs3.NFS3ERR_INVAL, "cannot remove '.'");
        }
        if (name.equals(FileName.DOT_DOT)) {
            throw new NfsException(Nfs3.NFS3ERR_NOTEMPTY, "cannot remove '..'");
        }
    }

    /**
     * Checks a RENAME source or target name.
     *
     * @throws NfsException NFS3ERR_INVAL for "." and "..", otherwise as {@link #requireComponent}
     */
    public static void requireRenameName(FileName name) throws NfsException {
        requireComponent(name);
        if (isDot(name)) {
            throw new NfsException(Nfs3.NFS3ERR_INVAL, "cannot rename " + name);
        }
    }

    /**
     * Checks that a name is one path component.
     *
     * @throws NfsException NFS3ERR_ACCES if empty or containing '/' or NUL (as Linux knfsd),
     *     NFS3ERR_NAMETOOLONG above {@link Xdr3#NAME_MAX} bytes
     */
    public static void requireComponent(FileName name) throws NfsException {
        if (name.isEmpty() || name.contains((byte) '/') || name.contains((byte) 0)) {
            throw new NfsException(Nfs3.NFS3ERR_ACCES, "not a file name component");
        }
        if (name.length() > Xdr3.NAME_MAX) {
            throw new NfsException(Nfs3.NFS3ERR_NAMETOOLONG, "name longer than " + Xdr3.NAME_MAX + " bytes");
        }
    }

    /** Whether a name is "." or "..". */
    public static boolean isDot(String name) {
        return name.equals(".") || name.equals("..");
    }

    /** Whether a name is "." or "..". */
    public static boolean isDot(FileName name) {
        return name.isDot();
    }
}
