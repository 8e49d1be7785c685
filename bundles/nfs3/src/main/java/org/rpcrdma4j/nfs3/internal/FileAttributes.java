package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.Path;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * FileAttributes - the attributes of one file as one lstat(2) reports them ({@link UnixStat}:
 * never following a final symbolic link), and their fattr3 / wcc_attr encodings.
 *
 * <p>fattr3 is 84 bytes (RFC 1813 §2.6):
 * <pre>
 * type mode nlink uid gid | size(8) used(8) | rdev(major minor) | fsid(8) fileid(8) | atime mtime ctime (s ns each)
 * </pre>
 * {@code used} is the size rounded up to {@link #USED_UNIT}: Java does not expose st_blocks.
 *
 * <p>A procedure reads a file's attributes once with its handle check ({@link ExportRoot#locate}),
 * which its reply reuses, and once more only for each further object or after-state it reports
 * (LOOKUP's child; WRITE's, COMMIT's and SETATTR's post-operation attributes). How the lstat(2)
 * reaches Java without a map of boxed values per read: {@link UnixStat}.
 */
public record FileAttributes(int type, int mode, int nlink, int uid, int gid, long size, long rdev,
        long dev, long ino, long atimeNanos, long mtimeNanos, long ctimeNanos) {

    /** Bytes of an encoded fattr3. */
    public static final int FATTR3_BYTES = 84;
    /** Granule the {@code used} attribute is rounded up to. */
    public static final long USED_UNIT = 4096;

    private static final int S_IFMT = 0170000;

    /**
     * Reads the attributes of a path without following a final symbolic link.
     *
     * @throws IOException as the file system reports it (NoSuchFileException when gone)
     */
    public static FileAttributes read(Path path) throws IOException {
        return of(UnixStat.of(path));
    }

    /** The attributes of what {@code stat} says. */
    public static FileAttributes of(UnixStat stat) {
        int mode = stat.mode();
        return new FileAttributes(typeOf(mode), mode & 07777, stat.nlink(), stat.uid(), stat.gid(), stat.size(),
                stat.rdev(), stat.dev(), stat.ino(), stat.atimeNanos(), stat.mtimeNanos(), stat.ctimeNanos());
    }

    private static int typeOf(int mode) {
        switch (mode & S_IFMT) {
            case 0040000: return Nfs3.NF3DIR;
            case 0120000: return Nfs3.NF3LNK;
            case 0060000: return Nfs3.NF3BLK;
            case 0020000: return Nfs3.NF3CHR;
            case 0140000: return Nfs3.NF3SOCK;
            case 0010000: return Nfs3.NF3FIFO;
            default: return Nfs3.NF3REG;
        }
    }

    /** Whether this is a directory. */
    public boolean isDirectory() {
        return type == Nfs3.NF3DIR;
    }

    /** Whether this is a regular file. */
    public boolean isRegularFile() {
        return type == Nfs3.NF3REG;
    }

    /** The bytes used on disk, approximated as the size rounded up to {@link #USED_UNIT}. */
    public long used() {
        return (size + USED_UNIT - 1) / USED_UNIT * USED_UNIT;
    }

    /** Writes fattr3. */
    public void encode(XdrEncodingStream out) {
        out.xdrEncodeInt(type);
        out.xdrEncodeInt(mode);
        out.xdrEncodeInt(nlink);
        out.xdrEncodeInt(uid);
        out.xdrEncodeInt(gid);
        out.xdrEncodeLong(size);
        out.xdrEncodeLong(used());
        out.xdrEncodeInt(major(rdev));
        out.xdrEncodeInt(minor(rdev));
        out.xdrEncodeLong(dev);
        out.xdrEncodeLong(ino);
        encodeTime(out, atimeNanos);
        encodeTime(out, mtimeNanos);
        encodeTime(out, ctimeNanos);
    }

    /** Writes wcc_attr: size, mtime, ctime. */
    public void encodeWcc(XdrEncodingStream out) {
        out.xdrEncodeLong(size);
        encodeTime(out, mtimeNanos);
        encodeTime(out, ctimeNanos);
    }

    /** Writes an nfstime3 (seconds, nanoseconds) for a time in nanoseconds since the epoch. */
    public static void encodeTime(XdrEncodingStream out, long nanos) {
        out.xdrEncodeInt((int) Math.floorDiv(nanos, 1_000_000_000L));
        out.xdrEncodeInt((int) Math.floorMod(nanos, 1_000_000_000L));
    }

    // Linux dev_t layout (glibc gnu_dev_major/minor).
    private static int major(long dev) {
        return (int) (((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL));
    }

    private static int minor(long dev) {
        return (int) ((dev & 0xff) | ((dev >>> 12) & ~0xffL));
    }
}
