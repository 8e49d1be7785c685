package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.dcache.nfs.vfs.Stat;
import org.rpcrdma4j.nfs3.localfs.InodeIndex;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * UnixAttributes - one object's attributes as one lstat(2) reports them ({@link UnixStat}: never
 * following a final symbolic link), and their nfs4j {@link Stat}.
 *
 * @param mode st_mode, type bits included
 */
record UnixAttributes(long dev, long ino, int mode, int nlink, int uid, int gid, long rdev, long size,
        long atimeNanos, long mtimeNanos, long ctimeNanos) {

    private static final int S_IFMT = 0170000;

    /** How the inode index reads these attributes. */
    static final InodeIndex.Attributes<UnixAttributes> INDEXED =
            InodeIndex.Attributes.of(UnixAttributes::read, UnixAttributes::dev, UnixAttributes::ino);

    /**
     * Reads the attributes of a path without following a final symbolic link.
     *
     * @throws IOException as the file system reports it (NoSuchFileException when gone)
     */
    static UnixAttributes read(Path path) throws IOException {
        UnixStat s = UnixStat.of(path);
        return new UnixAttributes(s.dev(), s.ino(), s.mode(), s.nlink(), s.uid(), s.gid(), s.rdev(), s.size(),
                s.atimeNanos(), s.mtimeNanos(), s.ctimeNanos());
    }

    boolean isDirectory() {
        return (mode & S_IFMT) == Stat.S_IFDIR;
    }

    boolean isRegularFile() {
        return (mode & S_IFMT) == Stat.S_IFREG;
    }

    boolean isSymbolicLink() {
        return (mode & S_IFMT) == Stat.S_IFLNK;
    }

    /** The handle that names this object. */
    InodeHandle handle() {
        return InodeHandle.of(mode, dev, ino);
    }

    /**
     * nfs4j's attributes. nfs4j keeps times in milliseconds and the change attribute in
     * {@code generation}: it is the ctime in nanoseconds, which every change of data or
     * attributes advances (what knfsd reports where the file system has no i_version).
     */
    Stat toStat() {
        Stat stat = new Stat();
        stat.setDev((int) (dev ^ (dev >>> 32)));
        stat.setIno(ino);
        stat.setMode(mode);
        stat.setNlink(nlink);
        stat.setUid(uid);
        stat.setGid(gid);
        stat.setRdev((int) rdev);
        stat.setSize(size);
        stat.setATime(TimeUnit.NANOSECONDS.toMillis(atimeNanos));
        stat.setMTime(TimeUnit.NANOSECONDS.toMillis(mtimeNanos));
        stat.setCTime(TimeUnit.NANOSECONDS.toMillis(ctimeNanos));
        stat.setBTime(TimeUnit.NANOSECONDS.toMillis(ctimeNanos));
        stat.setGeneration(ctimeNanos);
        return stat;
    }
}
