package org.rpcrdma4j.nfs3.localfs;

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

    /** Who asks for the change: the caller's identity after the export's squashing. */
    public interface Identity {
        /** Whether the caller acts as the superuser (uid 0). */
        boolean isRoot();

        /** Whether {@code gid} is the caller's primary group or one of its supplementary groups. */
        boolean inGroup(int gid);
    }

    private SetIdBits() {
    }

    /**
     * The mode a new object gets.
     *
     * @param caller the creator
     * @param directoryMode the parent directory's mode
     * @param isDirectory whether the new object is a directory
     * @param gid the group the new object got
     * @param requested the client's mode (or the default)
     */
    public static int creationMode(Identity caller, int directoryMode, boolean isDirectory, int gid,
            int requested) {
        int mode = requested & 07777;
        if (isDirectory && (directoryMode & S_ISGID) != 0) {
            return mode | S_ISGID;
        }
        return withoutForeignSetgid(caller, gid, mode);
    }

    /**
     * The group a new object gets (inode_init_owner): the parent directory's when that has
     * set-group-ID (BSD group semantics), else the creator's primary group.
     */
    public static int creationGroup(int directoryMode, int directoryGid, int callerGid) {
        return (directoryMode & S_ISGID) != 0 ? directoryGid : callerGid;
    }

    /** The mode a chmod by the caller really sets on an object of group {@code gid}. */
    public static int chmodMode(Identity caller, int gid, int requested) {
        return withoutForeignSetgid(caller, gid, requested & 07777);
    }

    private static int withoutForeignSetgid(Identity caller, int gid, int mode) {
        if ((mode & S_ISGID) != 0 && !caller.isRoot() && !caller.inGroup(gid)) {
            return mode & ~S_ISGID;
        }
        return mode;
    }

    /**
     * The bits a WRITE or size change by the caller removes from an object of this mode: 0 in
     * the common case (no set-id bit, or root, or not a regular file), which costs only this test.
     *
     * @param mode the object's permission bits (07777 and more bits are ignored)
     * @param isRegularFile whether the object is a regular file
     */
    public static int killedByWrite(Identity caller, int mode, boolean isRegularFile) {
        int kill = mode & S_ISUID;
        if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) {
            kill |= S_ISGID;
        }
        if (kill == 0 || caller.isRoot() || !isRegularFile) {
            return 0;
        }
        return kill;
    }

    /**
     * Clears the bits a WRITE or size change by the caller removes, if any.
     *
     * @param mode the file's current permission bits
     * @return whether the mode was changed
     * @throws IOException when the file system refuses the chmod
     */
    public static boolean removeForWrite(Identity caller, Path file, int mode, boolean isRegularFile)
            throws IOException {
        int kill = killedByWrite(caller, mode, isRegularFile);
        if (kill == 0) {
            return false;
        }
        Files.setAttribute(file, "unix:mode", (mode & 07777) & ~kill, LinkOption.NOFOLLOW_LINKS);
        return true;
    }
}
