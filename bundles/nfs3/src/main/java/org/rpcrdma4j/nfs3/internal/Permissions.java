package org.rpcrdma4j.nfs3.internal;

import org.rpcrdma4j.nfs3.Nfs3;

/**
 * Permissions - POSIX mode-bit checks made by the server on the caller's behalf (the server
 * process itself may run as root, so the file system cannot be left to check).
 *
 * <p>Superuser rules follow Linux: root may read and write anything and search any directory,
 * and may execute a file only if some execute bit is set. Owner override, as Linux knfsd does
 * for NFS: the owner of a file may read and write it whatever its mode, so a file created
 * read-only can still receive its data.
 */
public final class Permissions {

    /** Read permission bit of a mode class. */
    public static final int READ = 4;
    /** Write permission bit of a mode class. */
    public static final int WRITE = 2;
    /** Execute / search permission bit of a mode class. */
    public static final int EXECUTE = 1;

    private static final int S_ISVTX = 01000;

    private Permissions() {
    }

    /** Whether the caller has every permission in {@code wanted} (READ|WRITE|EXECUTE) on the object. */
    public static boolean allowed(Caller caller, FileAttributes object, int wanted) {
        if (caller.isRoot()) {
            return (wanted & EXECUTE) == 0 || object.isDirectory() || (object.mode() & 0111) != 0;
        }
        int bits;
        if (caller.uid() == object.uid()) {
            bits = object.mode() >> 6;
        } else if (caller.inGroup(object.gid())) {
            bits = object.mode() >> 3;
        } else {
            bits = object.mode();
        }
        return (bits & wanted & 7) == wanted;
    }

    /**
     * Requires permissions on an object.
     *
     * @throws NfsException NFS3ERR_ACCES if any is missing
     */
    public static void require(Caller caller, FileAttributes object, int wanted) throws NfsException {
        if (!allowed(caller, object, wanted)) {
            throw new NfsException(Nfs3.NFS3ERR_ACCES, "uid " + caller.uid() + " lacks " + wanted + " on mode 0"
                    + Integer.toOctalString(object.mode()));
        }
    }

    /** Requires READ or WRITE on file data, with the owner override. */
    public static void requireData(Caller caller, FileAttributes file, int wanted) throws NfsException {
        if (caller.uid() != file.uid()) {
            require(caller, file, wanted);
        }
    }

    /** Requires write and search permission on a directory to add or remove entries. */
    public static void requireModifyDirectory(Caller caller, FileAttributes directory) throws NfsException {
        require(caller, directory, WRITE | EXECUTE);
    }

    /**
     * Requires the right to remove or rename an entry out of a directory: write and search on
     * the directory and, if it is sticky, ownership of the entry or of the directory.
     */
    public static void requireUnlink(Caller caller, FileAttributes directory, FileAttributes entry) throws NfsException {
        requireModifyDirectory(caller, directory);
        if ((directory.mode() & S_ISVTX) != 0 && !caller.isRoot()
                && caller.uid() != entry.uid() && caller.uid() != directory.uid()) {
            throw new NfsException(Nfs3.NFS3ERR_ACCES, "sticky directory: uid " + caller.uid() + " owns neither");
        }
    }

    /** Requires ownership (or root) for changing mode, owner or explicit times. */
    public static void requireOwner(Caller caller, FileAttributes object) throws NfsException {
        if (!caller.isRoot() && caller.uid() != object.uid()) {
            throw new NfsException(Nfs3.NFS3ERR_PERM, "uid " + caller.uid() + " does not own the object");
        }
    }

    /**
     * The ACCESS3 bits granted to the caller among those asked (RFC 1813 §3.3.4): the mode
     * bits strictly, without the owner override, as the client uses them for open() checks.
     *
     * @param readOnly whether the export is read-only (no MODIFY, EXTEND, DELETE)
     */
    public static int access(Caller caller, FileAttributes object, int asked, boolean readOnly) {
        int granted = 0;
        boolean directory = object.isDirectory();
        if (allowed(caller, object, READ)) {
            granted |= Nfs3.ACCESS3_READ;
        }
        boolean write = allowed(caller, object, WRITE) && !readOnly;
        if (write) {
            granted |= Nfs3.ACCESS3_MODIFY | Nfs3.ACCESS3_EXTEND;
        }
        if (directory) {
            if (allowed(caller, object, EXECUTE)) {
                granted |= Nfs3.ACCESS3_LOOKUP;
            }
            if (write && allowed(caller, object, EXECUTE)) {
                granted |= Nfs3.ACCESS3_DELETE;
            }
        } else if (allowed(caller, object, EXECUTE)) {
            granted |= Nfs3.ACCESS3_EXECUTE;
        }
        return granted & asked;
    }
}
