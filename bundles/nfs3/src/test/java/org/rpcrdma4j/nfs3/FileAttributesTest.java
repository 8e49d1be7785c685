package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.internal.FileAttributes;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * FileAttributes against stat(1): every field of fattr3 the server encodes (type, mode with the
 * set-id and sticky bits, nlink, uid, gid, size, used, rdev, fsid, fileid, the three times to the
 * nanosecond) as GNU coreutils' stat reports them, for the kinds of object an export holds. A
 * guard for any change of how the attributes are read (issue #33: one lstat(2) read from the
 * JDK's own structure, or the unix: map; see UnixStat and UnixStatTest).
 */
class FileAttributesTest {

    @TempDir
    Path dir;

    /** stat(1)'s view of a path: %i %h %u %g %f %s %t %T %d %.9X %.9Y %.9Z (no final link followed). */
    private record Stat(long ino, int nlink, int uid, int gid, int rawMode, long size, int major, int minor,
            long dev, long atime, long mtime, long ctime) {

        static Stat of(Path path) throws IOException, InterruptedException {
            Process p = new ProcessBuilder("stat", "-c", "%i %h %u %g %f %s %t %T %d %.9X %.9Y %.9Z", path.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "stat(1) unavailable: " + out);
            String[] f = out.split(" ");
            return new Stat(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                    Integer.parseInt(f[3]), Integer.parseInt(f[4], 16), Long.parseLong(f[5]),
                    Integer.parseInt(f[6], 16), Integer.parseInt(f[7], 16), Long.parseLong(f[8]), nanos(f[9]),
                    nanos(f[10]), nanos(f[11]));
        }

        private static long nanos(String secondsDotNanos) {
            String[] parts = secondsDotNanos.split("\\.");
            return Long.parseLong(parts[0]) * 1_000_000_000L + Long.parseLong(parts[1]);
        }
    }

    private static void assertSameAsStat(Path path, int nfsType) throws Exception {
        FileAttributes a = FileAttributes.read(path);
        Stat s = Stat.of(path);
        Xdr xdr = new Xdr(FileAttributes.FATTR3_BYTES);
        xdr.beginEncoding();
        a.encode(xdr);
        xdr.endEncoding();
        byte[] bytes = new byte[FileAttributes.FATTR3_BYTES];
        xdr.asBuffer().get(bytes);
        XdrReader f = new XdrReader(bytes);
        String what = path.getFileName().toString();
        assertEquals(nfsType, f.readInt(), what + " type");
        assertEquals(s.rawMode() & 07777, f.readInt(), what + " mode with set-id and sticky bits");
        assertEquals(s.nlink(), f.readInt(), what + " nlink");
        assertEquals(s.uid(), f.readInt(), what + " uid");
        assertEquals(s.gid(), f.readInt(), what + " gid");
        assertEquals(s.size(), f.readLong(), what + " size");
        assertEquals((s.size() + 4095) / 4096 * 4096, f.readLong(), what + " used: size in 4 KiB units");
        assertEquals(s.major(), f.readInt(), what + " rdev major");
        assertEquals(s.minor(), f.readInt(), what + " rdev minor");
        assertEquals(s.dev(), f.readLong(), what + " fsid");
        assertEquals(s.ino(), f.readLong(), what + " fileid");
        assertEquals(s.atime(), f.readInt() * 1_000_000_000L + f.readInt(), what + " atime");
        assertEquals(s.mtime(), f.readInt() * 1_000_000_000L + f.readInt(), what + " mtime");
        assertEquals(s.ctime(), f.readInt() * 1_000_000_000L + f.readInt(), what + " ctime");
    }

    @Test
    void aRegularFileWithSetIdBitsAndNanosecondTimes() throws Exception {
        Path file = Files.write(dir.resolve("file"), new byte[5000]);
        Files.setAttribute(file, "unix:mode", 06755, LinkOption.NOFOLLOW_LINKS);
        Files.createLink(dir.resolve("second-name"), file);
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(1_700_000_000_123_456_789L,
                TimeUnit.NANOSECONDS));
        assertSameAsStat(file, Nfs3.NF3REG);
    }

    @Test
    void aDirectoryWithTheStickyBit() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Files.createDirectory(sub.resolve("child"));
        Files.setAttribute(sub, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        assertSameAsStat(sub, Nfs3.NF3DIR);
    }

    @Test
    void aSymbolicLinkItselfNotItsTarget() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("link"), Paths.get("no-such-target-of-some-length"));
        assertSameAsStat(link, Nfs3.NF3LNK);
    }

    @Test
    void aCharacterDeviceWithItsRdev() throws Exception {
        Path devNull = Paths.get("/dev/null");
        assumeTrue(Files.exists(devNull, LinkOption.NOFOLLOW_LINKS));
        assertSameAsStat(devNull, Nfs3.NF3CHR);
    }
}
