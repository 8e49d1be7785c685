package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.Libnfs;
import org.rpcrdma4j.nfs3.support.TestServer;

/**
 * Interoperability with a real third-party client, libnfs (Debian's libnfs-utils): files
 * copied in and out byte-exact, a directory of 10,000 entries listed completely, permission
 * and export violations refused. Skipped, naming the package, where the tools are absent.
 */
class LibnfsInteropTest {

    private static final int MIB = 1024 * 1024;

    @TempDir
    static Path temp;

    private static TestServer server;
    private static Path exportDir;
    private static int owner;
    private static Libnfs libnfs;

    @BeforeAll
    static void startServer() throws IOException {
        assumeTrue(Libnfs.installed(), "nfs-ls, nfs-cp and nfs-cat not found: install the Debian package "
                + Libnfs.PACKAGE + " (apt-get install -y " + Libnfs.PACKAGE + ")");
        Export export = TestServer.export(temp, "127.0.0.1/32(rw,root_squash)");
        exportDir = export.directory();
        owner = Identity.handToOwner(exportDir);
        server = TestServer.start(temp.resolve("state"), export);
        libnfs = new Libnfs(server.port(), owner, Identity.groupOf(exportDir));
    }

    @AfterAll
    static void stopServer() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 4095, 4096, MIB + 3, 64 * MIB})
    void filesAreCopiedInAndOutByteExact(int size) throws IOException {
        Path local = temp.resolve("in-" + size);
        writeRandom(local, size, size);
        Libnfs.Result in = libnfs.run("nfs-cp", local.toString(), libnfs.url("/copy-" + size));
        assertEquals(0, in.exitCode(), "nfs-cp in: " + in);
        Path served = exportDir.resolve("copy-" + size);
        assertEquals(-1L, Files.mismatch(local, served), "the served file equals the local one");
        assertEquals(owner, (Integer) Files.getAttribute(served, "unix:uid", LinkOption.NOFOLLOW_LINKS));

        Path back = temp.resolve("out-" + size);
        Libnfs.Result out = libnfs.run("nfs-cp", libnfs.url("/copy-" + size), back.toString());
        assertEquals(0, out.exitCode(), "nfs-cp out: " + out);
        assertEquals(-1L, Files.mismatch(local, back), "the copy back equals the original");
        Files.delete(local);
        Files.delete(back);
        Files.delete(served);
    }

    @Test
    void nfsCatPrintsAFile() throws IOException {
        Path served = exportDir.resolve("cat-me");
        writeRandom(served, 4096, 1);
        Libnfs.Result cat = libnfs.run("nfs-cat", libnfs.url("/cat-me"));
        assertEquals(0, cat.exitCode(), "nfs-cat: " + cat);
        assertEquals(-1, java.util.Arrays.mismatch(Files.readAllBytes(served), cat.stdout()));
    }

    @Test
    void aDirectoryOfTenThousandEntriesIsListedCompletely() throws IOException {
        Path big = Files.createDirectories(exportDir.resolve("big"));
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String name = "entry-" + i;
            Files.createFile(big.resolve(name));
            expected.add(name);
        }
        Libnfs.Result ls = libnfs.run("nfs-ls", libnfs.url("/big"));
        assertEquals(0, ls.exitCode(), "nfs-ls: " + ls);
        Set<String> listed = new HashSet<>();
        for (String line : ls.text().split("\n")) {
            String[] fields = line.trim().split("\\s+");
            String name = fields[fields.length - 1];
            if (name.startsWith("entry-")) {
                assertTrue(listed.add(name), "listed once: " + name);
            }
        }
        assertEquals(expected, listed);
    }

    @Test
    void permissionViolationsAreRefusedCleanly() throws IOException {
        Path secret = exportDir.resolve("secret");
        Files.writeString(secret, "top secret");
        Files.setAttribute(secret, "unix:mode", 0600, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(secret, "unix:uid", owner, LinkOption.NOFOLLOW_LINKS);
        Libnfs stranger = new Libnfs(server.port(), owner + 1000, owner + 1000);
        Libnfs.Result cat = stranger.run("nfs-cat", stranger.url("/secret"));
        assertNotEquals(0, cat.exitCode(), "nfs-cat of a 0600 file by another user: " + cat);
        assertTrue(cat.stderr().contains("ACCESS denied"), "the server's ACCESS reply refused reading: " + cat);
        assertFalse(cat.text().contains("top secret"), "no data leaked");
        Path local = temp.resolve("intruder");
        Files.writeString(local, "x");
        Libnfs.Result cp = stranger.run("nfs-cp", local.toString(), stranger.url("/intruder"));
        assertNotEquals(0, cp.exitCode(), "nfs-cp into a directory of another user: " + cp);
        assertTrue(cp.stderr().contains("NFS3ERR_ACCES"), "CREATE refused with NFS3ERR_ACCES: " + cp);
        assertFalse(Files.exists(exportDir.resolve("intruder"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void anExportNotOpenToThisClientIsRefusedCleanly(@TempDir Path other) throws IOException {
        try (TestServer closed = TestServer.start(other.resolve("state"),
                TestServer.export(other, "10.0.0.0/8(rw)"))) {
            Libnfs refused = new Libnfs(closed.port(), owner, owner);
            Libnfs.Result ls = refused.run("nfs-ls", refused.url("/"));
            assertNotEquals(0, ls.exitCode(), "nfs-ls of an export for 10.0.0.0/8 from 127.0.0.1: " + ls);
            assertTrue(ls.stderr().contains("MNT3ERR_ACCES"), "MNT refused with MNT3ERR_ACCES: " + ls);
            assertTrue(ls.text().isEmpty(), "nothing listed");
        }
    }

    private static void writeRandom(Path path, int size, long seed) throws IOException {
        Random random = new Random(seed);
        byte[] chunk = new byte[MIB];
        try (OutputStream out = Files.newOutputStream(path)) {
            for (int written = 0; written < size; written += chunk.length) {
                random.nextBytes(chunk);
                out.write(chunk, 0, Math.min(chunk.length, size - written));
            }
        }
    }
}
