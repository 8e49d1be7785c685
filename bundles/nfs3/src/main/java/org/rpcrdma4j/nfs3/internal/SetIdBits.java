package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * SetIdBits - the set-user-ID and set-group-ID rules of Linux, applied by the server because it
 * acts as root and holds CAP_FSETID, so the kernel would apply none of them on the caller's
 * behalf (as knfsd, which drops CAP_FSETID for any caller but root).
 *
 * <ul>
 * <li>Creation (inode_init_owner): a new directory in a set-group-ID directory always inherits
 *     set-group-ID; any other new object keeps a requested set-group-ID only if the caller is
 *     in the group it gets (root always).</li>
 * <li>chmod (setattr_copy): set-group-ID is dropped when the caller is not in the object's
 *     group (root excepted), for every type.</li>
 * <li>WRITE and size changes (file_remove_privs, should_remove_suid): set-user-ID is cleared,
 *     and set-group-ID when group-execute is set (without it, set-group-ID is a mandatory
 *     locking mark and stays), unless the caller is root.</li>
 * </ul>
 * chown needs nothing here: the kernel clears both bits on chown even for root.
 */
public final class SetIdBits {

    /** Set-user-ID. */
    public static final int S_ISUID = 04000;
    /** Set-group-ID. */
    public static final int S_ISGID = 02000;
    private static final int S_IXGRP = 00010;

    private SetIdBits() {
    }

    /**
     * The mode a new object gets.
     *
     * @param caller the creator
     * @param directory the parent's attributes
     * @param isDirectory whether the new object is a directory
     * @param gid the group the new object got
     * @param requested the client's mode (or the default)
     */
    public static int creationMode(Caller caller, FileAttributes directory, boolean isDirectory, int gid,
            int requested) {
        int mode = requested & 07777;
        if (isDirectory && (directory.mode() & S_ISGID) != 0) {
            return mode | S_ISGID;
        }
        return withoutForeignSetgid(caller, gid, mode);
    }

    /** The mode a chmod by the caller really sets on an object of group {@code gid}. */
    public static int chmodMode(Caller caller, int gid, int requested) {
        return withoutForeignSetgid(caller, gid, requested & 07777);
    }

    private static int withoutForeignSetgid(Caller caller, int gid, int mode) {
        if ((mode & S_ISGID) != 0 && !caller.isRoot() && !caller.inGroup(gid)) {
            return mode & ~S_ISGID;
        }
        return mode;
    }

    /**
     * The bits a WRITE or size change by the caller removes from a regular file of this mode:
     * 0 in the common case (no set-id bit, or root), which costs only this test.
     */
    public static int killedByWrite(Caller caller, FileAttributes file) {
        int mode = file.mode();
        int kill = mode & S_ISUID;
        if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) {
            kill |= S_ISGID;
        }
        if (kill == 0 || caller.isRoot() || !file.isRegularFile()) {
            return 0;
        }
        return kill;
    }

    /**
     * Clears the bits a WRITE or size change by the caller removes, if any.
     *
     * @return whether the mode was changed
     * @throws IOException when the file system refuses the chmod
     */
    public static boolean removeForWrite(Caller caller, Path file, FileAttributes attributes) throws IOException {
        int kill = killedByWrite(caller, attributes);
        if (kill == 0) {
            return false;
        }
        Files.setAttribute(file, "unix:mode", attributes.mode() & ~kill, LinkOption.NOFOLLOW_LINKS);
        return true;
    }
}
