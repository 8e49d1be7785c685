package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * AttributeSetter - applies a sattr3 to an object on behalf of a caller, with the POSIX rules
 * of chmod, chown, truncate and utimensat checked in the server.
 *
 * <p>Order: size, times, owner, mode (a size change or chown may clear set-id bits that the
 * mode then sets). The set-id rules are those of {@link SetIdBits}.
 * Symbolic links ignore a mode, as on Linux.
 */
public final class AttributeSetter {

    private AttributeSetter() {
    }

    /**
     * Applies the attributes.
     *
     * @param caller who asks
     * @param path the object (a final symbolic link is not followed)
     * @param current its attributes now
     * @param set what to change
     * @throws NfsException NFS3ERR_PERM / NFS3ERR_ACCES when not allowed, NFS3ERR_INVAL or
     *     NFS3ERR_ISDIR for a size on a non-file
     * @throws IOException when the file system refuses
     */
    public static void apply(Caller caller, Path path, FileAttributes current, SetAttributes set)
            throws NfsException, IOException {
        if (set.size() != null) {
            setSize(caller, path, current, set.size());
        }
        if (set.atime() != null || set.mtime() != null) {
            setTimes(caller, path, current, set.atime(), set.mtime());
        }
        if ((set.uid() != null && set.uid() != current.uid()) || (set.gid() != null && set.gid() != current.gid())) {
            setOwner(caller, path, current, set.uid(), set.gid());
        }
        if (set.mode() != null && current.type() != Nfs3.NF3LNK) {
            setMode(caller, path, current, set.mode());
        }
    }

    private static void setSize(Caller caller, Path path, FileAttributes current, long size)
            throws NfsException, IOException {
        if (current.isDirectory()) {
            throw new NfsException(Nfs3.NFS3ERR_ISDIR, "size of a directory");
        }
        if (!current.isRegularFile()) {
            throw new NfsException(Nfs3.NFS3ERR_INVAL, "size of a non-file");
        }
        if (size < 0) {
            throw new NfsException(Nfs3.NFS3ERR_FBIG, "size beyond 2^63-1");
        }
        Permissions.requireData(caller, current, Permissions.WRITE);
        SetIdBits.removeForWrite(caller, path, current.mode(), current.isRegularFile());
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            long now = channel.size();
            if (size < now) {
                channel.truncate(size);
            } else if (size > now) {
                // FileChannel cannot extend: write the last byte, which lies beyond EOF and so is zero.
                channel.write(ByteBuffer.allocate(1), size - 1);
            }
        }
    }

    private static void setTimes(Caller caller, Path path, FileAttributes current, Long atime, Long mtime)
            throws NfsException, IOException {
        boolean explicit = (atime != null && atime != SetAttributes.SERVER_TIME)
                || (mtime != null && mtime != SetAttributes.SERVER_TIME);
        if (explicit) {
            Permissions.requireOwner(caller, current);
        } else if (!caller.isRoot() && caller.uid() != current.uid()) {
            Permissions.require(caller, current, Permissions.WRITE);
        }
        FileTime now = FileTime.from(Instant.now());
        Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setTimes(time(mtime, now), time(atime, now), null);
    }

    private static FileTime time(Long nanos, FileTime now) {
        if (nanos == null) {
            return null;
        }
        return nanos == SetAttributes.SERVER_TIME ? now : FileTime.from(nanos, TimeUnit.NANOSECONDS);
    }

    private static void setOwner(Caller caller, Path path, FileAttributes current, Integer uid, Integer gid)
            throws NfsException, IOException {
        if (uid != null && uid != current.uid() && !caller.isRoot()) {
            throw new NfsException(Nfs3.NFS3ERR_PERM, "only root gives files away");
        }
        if (gid != null && gid != current.gid() && !caller.isRoot()
                && (caller.uid() != current.uid() || !caller.inGroup(gid))) {
            throw new NfsException(Nfs3.NFS3ERR_PERM, "chgrp needs ownership and membership of the group");
        }
        if (uid != null) {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        }
        if (gid != null) {
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private static void setMode(Caller caller, Path path, FileAttributes current, int mode)
            throws NfsException, IOException {
        Permissions.requireOwner(caller, current);
        Files.setAttribute(path, "unix:mode", SetIdBits.chmodMode(caller, current.gid(), mode),
                LinkOption.NOFOLLOW_LINKS);
    }
}
