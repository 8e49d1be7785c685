package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.dcache.nfs.vfs.Stat;
import org.rpcrdma4j.nfs3.localfs.InodeIndex;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * UnixAttributes - one object's attributes as one lstat(2) reports them ({@link UnixStat}: never
 * following a final symbolic link, held as read, not copied), and their nfs4j {@link Stat}.
 */
record UnixAttributes(UnixStat stat) {

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
        return new UnixAttributes(UnixStat.of(path));
    }

    /** @return st_dev */
    long dev() {
        return stat.dev();
    }

    /** @return st_ino */
    long ino() {
        return stat.ino();
    }

    /** @return st_mode, type bits included */
    int mode() {
        return stat.mode();
    }

    /** @return st_uid */
    int uid() {
        return stat.uid();
    }

    /** @return st_gid */
    int gid() {
        return stat.gid();
    }

    /** @return st_size */
    long size() {
        return stat.size();
    }

    boolean isDirectory() {
        return (stat.mode() & S_IFMT) == Stat.S_IFDIR;
    }

    boolean isRegularFile() {
        return (stat.mode() & S_IFMT) == Stat.S_IFREG;
    }

    boolean isSymbolicLink() {
        return (stat.mode() & S_IFMT) == Stat.S_IFLNK;
    }

    /** The handle that names this object. */
    InodeHandle handle() {
        return InodeHandle.of(stat.mode(), stat.dev(), stat.ino());
    }

    /**
     * nfs4j's attributes. nfs4j keeps times in milliseconds and the change attribute in
     * {@code generation}: it is the ctime in nanoseconds, which every change of data or
     * attributes advances (what knfsd reports where the file system has no i_version).
     */
    Stat toStat() {
        UnixStat s = this.stat;
        Stat stat = new Stat();
        stat.setDev((int) (s.dev() ^ (s.dev() >>> 32)));
        stat.setIno(s.ino());
        stat.setMode(s.mode());
        stat.setNlink(s.nlink());
        stat.setUid(s.uid());
        stat.setGid(s.gid());
        stat.setRdev((int) s.rdev());
        stat.setSize(s.size());
        stat.setATime(TimeUnit.NANOSECONDS.toMillis(s.atimeNanos()));
        stat.setMTime(TimeUnit.NANOSECONDS.toMillis(s.mtimeNanos()));
        stat.setCTime(TimeUnit.NANOSECONDS.toMillis(s.ctimeNanos()));
        stat.setBTime(TimeUnit.NANOSECONDS.toMillis(s.ctimeNanos()));
        stat.setGeneration(s.ctimeNanos());
        return stat;
    }
}
