package org.rpcrdma4j.nfs3.localfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UnixStat's two routes to one lstat(2): the JDK's own structure (taken here: this module's tests
 * run with java.base opening sun.nio.fs, as the Karaf assembly does) and the unix: attribute map,
 * field for field, for every kind of object an export holds. FileAttributesTest holds the result
 * against stat(1).
 */
class UnixStatTest {

    @TempDir
    Path dir;

    @Test
    void theJdkStructureIsReadWhereJavaBaseOpensIt() {
        assertTrue(UnixStat.readsJdkStructure(), "the tests run with " + UnixStat.OPEN_OPTION
                + " (bundles/nfs3/pom.xml), yet: " + UnixStat.route());
        assertTrue(UnixStat.route().contains("JDK's own structure"), UnixStat.route());
    }

    @Test
    void bothRoutesAgreeOnARegularFileWithSetIdBitsAndNanosecondTimes() throws Exception {
        Path file = Files.write(dir.resolve("file"), new byte[5000]);
        Files.setAttribute(file, "unix:mode", 06755, LinkOption.NOFOLLOW_LINKS);
        Files.createLink(dir.resolve("second-name"), file);
        Files.setLastModifiedTime(file, FileTime.from(1_700_000_000_123_456_789L, TimeUnit.NANOSECONDS));
        UnixStat s = UnixStat.of(file);
        assertEquals(UnixStat.fromMap(file), s);
        assertEquals(2, s.nlink());
        assertEquals(5000, s.size());
        assertEquals(0106755, s.mode(), "type bits and set-id bits");
        assertEquals(1_700_000_000_123_456_789L, s.mtimeNanos());
    }

    @Test
    void bothRoutesAgreeOnADirectoryASymbolicLinkAndADevice() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Files.setAttribute(sub, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        assertEquals(UnixStat.fromMap(sub), UnixStat.of(sub));
        assertEquals(041777, UnixStat.of(sub).mode());

        Path link = Files.createSymbolicLink(dir.resolve("link"), Paths.get("no-such-target-of-some-length"));
        UnixStat l = UnixStat.of(link);
        assertEquals(UnixStat.fromMap(link), l);
        assertEquals(0120000, l.mode() & 0170000, "the link itself, not its (missing) target");
        assertEquals("no-such-target-of-some-length".length(), l.size());

        Path devNull = Paths.get("/dev/null");
        assumeTrue(Files.exists(devNull, LinkOption.NOFOLLOW_LINKS), "/dev/null is missing");
        UnixStat d = UnixStat.of(devNull);
        assertEquals(UnixStat.fromMap(devNull), d);
        assertTrue(d.rdev() != 0, "a character device's rdev");
    }

    @Test
    void timesBeforeTheEpochKeepTheirSign() throws Exception {
        Path file = Files.createFile(dir.resolve("old"));
        // 1.5 s before 1970: st_mtime_sec -2, st_mtime_nsec 500000000 (java.nio's setter stores 0)
        Process touch = new ProcessBuilder("touch", "-d", "@-1.5", file.toString()).redirectErrorStream(true).start();
        String out = new String(touch.getInputStream().readAllBytes());
        assumeTrue(touch.waitFor(10, TimeUnit.SECONDS) && touch.exitValue() == 0, "touch(1) unavailable: " + out);
        UnixStat s = UnixStat.of(file);
        assertEquals(UnixStat.fromMap(file), s);
        assertEquals(-1_500_000_000L, s.mtimeNanos());
    }

    @Test
    void aMissingFileIsNoSuchFileOnBothRoutes() {
        Path gone = dir.resolve("gone");
        assertThrows(NoSuchFileException.class, () -> UnixStat.of(gone));
        assertThrows(NoSuchFileException.class, () -> UnixStat.fromMap(gone));
    }
}
