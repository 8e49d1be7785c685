package org.rpcrdma4j.nfs4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.Subject;
import org.dcache.nfs.ExportFile;
import org.dcache.nfs.FsExport;
import org.dcache.nfs.status.BadHandleException;
import org.dcache.nfs.status.ExistException;
import org.dcache.nfs.status.InvalException;
import org.dcache.nfs.status.IsDirException;
import org.dcache.nfs.status.NoEntException;
import org.dcache.nfs.status.NotEmptyException;
import org.dcache.nfs.status.PermException;
import org.dcache.nfs.status.StaleException;
import org.dcache.nfs.util.UnixSubjects;
import org.dcache.nfs.vfs.DirectoryEntry;
import org.dcache.nfs.vfs.Inode;
import org.dcache.nfs.vfs.Stat;
import org.dcache.nfs.vfs.VirtualFileSystem;
import org.dcache.nfs.vfs.VirtualFileSystem.StabilityLevel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import org.rpcrdma4j.nfs3.localfs.ServerKey;

/**
 * DirectoryFileSystemTest - the file system nfs4j serves, called as nfs4j's servers call it:
 * handles that cannot be forged and survive a restart, names as bytes, the set-id rules, and
 * failures as NFS statuses.
 */
class DirectoryFileSystemTest {

    @TempDir
    Path temporary;
    private Path root;
    private Path state;
    private DirectoryFileSystem fs;
    private Subject self;
    private int uid;
    private int gid;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectory(temporary.resolve("root"));
        state = temporary.resolve("state");
        fs = new DirectoryFileSystem(root, ServerKey.loadOrCreate(state));
        uid = (Integer) Files.getAttribute(root, "unix:uid");
        gid = (Integer) Files.getAttribute(root, "unix:gid");
        self = UnixSubjects.toSubject(uid, gid);
    }

    @AfterEach
    void close() {
        fs.close();
        assertEquals(0, fs.openChannels(), "every channel closed");
    }

    private Inode file(String name, String content) throws IOException {
        Inode inode = fs.create(fs.getRootInode(), Stat.Type.REGULAR, name, self, 0644);
        fs.write(inode, ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)), 0,
                VirtualFileSystem.StabilityLevel.FILE_SYNC);
        return inode;
    }

    private String content(Inode inode) throws IOException {
        ByteBuffer data = ByteBuffer.allocate(4096);
        int n = fs.read(inode, data, 0);
        return new String(data.array(), 0, n, StandardCharsets.UTF_8);
    }

    @Test
    void createWriteReadLookupAndAttributes() throws IOException {
        Inode created = file("a.txt", "hello nfs4j");
        assertEquals("hello nfs4j", content(fs.lookup(fs.getRootInode(), "a.txt")));
        Stat stat = fs.getattr(created);
        assertEquals(11, stat.getSize());
        assertEquals(Stat.S_IFREG | 0644, stat.getMode());
        assertEquals(uid, stat.getUid());
        assertEquals(created, fs.lookup(fs.getRootInode(), "a.txt"), "one handle per object");
        assertThrows(ExistException.class, () -> fs.create(fs.getRootInode(), Stat.Type.REGULAR, "a.txt", self, 0644));
        assertThrows(NoEntException.class, () -> fs.lookup(fs.getRootInode(), "missing"));
    }

    /** Work on the file system as one RPC call's (nfs4j's servers run a call on one thread). */
    private interface CallWork {
        void run() throws IOException;
    }

    private static void inOneCall(CallWork work) {
        CallerIdentity.runAs(CallerIdentity.of(true, 0).forOneCall(), () -> {
            try {
                work.run();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void withinOneCallAnObjectIsLookedAtOnceUntilTheCallChangesSomething() throws IOException {
        Inode f = file("once", "0123456789");
        Path onDisk = root.resolve("once");
        inOneCall(() -> {
            assertEquals(10, fs.getattr(f).getSize());
            // changed behind the server's back during the call: the call keeps its first look
            Files.write(onDisk, new byte[10], StandardOpenOption.APPEND);
            assertEquals(10, fs.getattr(f).getSize(), "one look per call");
            // a change through the file system: the next look reads again
            fs.write(f, ByteBuffer.wrap(new byte[5]), 20, StabilityLevel.UNSTABLE);
            assertEquals(25, fs.getattr(f).getSize(), "read again after the call's own WRITE");
            Files.write(onDisk, new byte[5], StandardOpenOption.APPEND);
            fs.setattr(f, new Stat()); // a SETATTR that sets nothing still ends what was kept
            assertEquals(30, fs.getattr(f).getSize(), "read again after the call's SETATTR");
        });
        inOneCall(() -> assertEquals(30, fs.getattr(f).getSize(), "the next call looks again"));
        Files.write(onDisk, new byte[1], StandardOpenOption.APPEND);
        assertEquals(31, fs.getattr(f).getSize(), "outside a call nothing is kept");
    }

    @Test
    void anObjectRemovedWithinTheCallIsNotFoundAgainByItsHandle() throws IOException {
        Inode f = file("gone", "x");
        inOneCall(() -> {
            fs.getattr(f);
            fs.remove(fs.getRootInode(), "gone");
            assertThrows(StaleException.class, () -> fs.getattr(f), "not the look kept from before the REMOVE");
        });
    }

    @Test
    void readsShareOneOpenChannelAndEndOfFileComesFromTheSameLook() throws IOException {
        Inode f = file("data", "0123456789");
        AtomicInteger eof = new AtomicInteger();
        for (int i = 0; i < 5; i++) {
            ByteBuffer four = ByteBuffer.allocate(4);
            assertEquals(4, fs.read(f, four, 2, eof::incrementAndGet));
            assertEquals("2345", new String(four.array(), StandardCharsets.US_ASCII));
        }
        assertEquals(0, eof.get(), "a read that stops before the size is not at the end");
        assertEquals(2, fs.openChannels(), "one channel for the file's WRITE and one for its READs: per file, not per call");
        ByteBuffer rest = ByteBuffer.allocate(8);
        assertEquals(4, fs.read(f, rest, 6, eof::incrementAndGet));
        assertEquals(1, eof.get(), "a read that reaches the size is");
        assertEquals("hello", content(file("other", "hello")));
        assertEquals(4, fs.openChannels());
        assertThrows(IsDirException.class, () -> fs.read(fs.getRootInode(), ByteBuffer.allocate(1), 0, eof::incrementAndGet));
        fs.remove(fs.getRootInode(), "data");
        assertEquals(2, fs.openChannels(), "the removed file's channels are closed");
    }

    @Test
    void aForgedOrTruncatedHandleIsRefused() throws IOException {
        Inode genuine = file("secret", "x");
        fs.getattr(genuine); // verified once: the cache of verified handles holds it now
        byte[] opaque = genuine.getFileIdKey().toBytes();
        opaque[10] ^= 1; // another inode number, MAC unchanged: the cached handle's slot
        assertThrows(BadHandleException.class, () -> fs.getattr(Inode.forFile(opaque)));
        for (int i = 0; i < InodeHandle.BYTES; i++) {
            byte[] flipped = genuine.getFileIdKey().toBytes();
            flipped[i] ^= (byte) 0x80;
            assertThrows(BadHandleException.class, () -> fs.getattr(Inode.forFile(flipped)), "byte " + i + " changed");
        }
        assertEquals(Stat.S_IFREG, fs.getattr(genuine).getMode() & Stat.S_TYPE, "the genuine handle still serves");
        byte[] truncated = new byte[InodeHandle.BYTES - 1];
        System.arraycopy(genuine.getFileIdKey().toBytes(), 0, truncated, 0, truncated.length);
        assertThrows(BadHandleException.class, () -> fs.getattr(Inode.forFile(truncated)));
        DirectoryFileSystem otherKey = new DirectoryFileSystem(root, ServerKey.loadOrCreate(temporary.resolve("other")));
        assertThrows(BadHandleException.class, () -> otherKey.getattr(genuine),
                "a handle signed with another server's key");
    }

    @Test
    void handlesSurviveARestartAndGoStaleWhenTheObjectGoes() throws IOException {
        Inode directory = fs.mkdir(fs.getRootInode(), "deep", self, 0755);
        Inode below = fs.mkdir(directory, "er", self, 0755);
        Inode inside = fs.create(below, Stat.Type.REGULAR, "file", self, 0600);
        fs.write(inside, ByteBuffer.wrap(new byte[] {1, 2, 3}), 0, VirtualFileSystem.StabilityLevel.UNSTABLE);

        DirectoryFileSystem restarted = new DirectoryFileSystem(root, ServerKey.loadOrCreate(state));
        assertEquals(3, restarted.getattr(inside).getSize(), "found by walking the tree after a restart");

        Files.delete(root.resolve("deep/er/file"));
        assertThrows(StaleException.class, () -> restarted.getattr(inside));
        assertThrows(StaleException.class, () -> fs.getattr(inside));
    }

    @Test
    void aDirectorySwappedForASymbolicLinkDoesNotLeadOutside() throws IOException {
        Inode directory = fs.mkdir(fs.getRootInode(), "d", self, 0755);
        Inode file = fs.create(directory, Stat.Type.REGULAR, "f", self, 0644);
        Path outside = Files.createDirectory(temporary.resolve("outside"));
        Files.move(root.resolve("d"), outside.resolve("d"));
        Files.createSymbolicLink(root.resolve("d"), outside.resolve("d"));
        assertThrows(StaleException.class, () -> fs.getattr(file), "the index's path now runs through a link");
    }

    @Test
    void duringACallOnlyTheClientsExportsAndTheWayToThemCanBeReached() throws IOException {
        Inode a = fs.mkdir(fs.getRootInode(), "a", self, 0755);
        Inode inA = fs.create(a, Stat.Type.REGULAR, "mine", self, 0644);
        Inode b = fs.mkdir(fs.getRootInode(), "b", self, 0755);
        Inode inB = fs.create(b, Stat.Type.REGULAR, "theirs", self, 0644);
        Inode loose = fs.create(fs.getRootInode(), Stat.Type.REGULAR, "unexported", self, 0644);
        CallerIdentity onlyA = CallerIdentity.reaching(fs.root(), List.of(fs.root().resolve("a")));
        List<String> outcomes = new ArrayList<>();
        CallerIdentity.runAs(onlyA, () -> {
            for (Inode inode : List.of(fs.getRootInode(), a, inA, b, inB, loose)) {
                try {
                    fs.getattr(inode);
                    outcomes.add("ok");
                } catch (org.dcache.nfs.status.AccessException refused) {
                    outcomes.add("refused");
                } catch (IOException e) {
                    outcomes.add(e.toString());
                }
            }
        });
        assertEquals(List.of("ok", "ok", "ok", "refused", "refused", "refused"), outcomes,
                "root (on the way), export a and its file; not export b, its file, or a file beside the exports");
        assertEquals(Stat.S_IFREG, fs.getattr(inB).getMode() & Stat.S_TYPE, "outside a call nothing is restricted");
    }

    /**
     * A client given export /a read-only and /b read-write pairs a handle of /a's file with /b's
     * index: nfs4j applies /b's rules (it looks /b up by the index just before the write), and the
     * file system refuses the object, which is not inside /b. Reads follow the same rule, and a
     * directory on the way to an export may be read but not changed.
     */
    @Test
    void anObjectIsUsedOnlyUnderTheRulesOfTheExportItLiesIn() throws Exception {
        Inode a = fs.mkdir(fs.getRootInode(), "a", self, 0755);
        Inode inA = fs.create(a, Stat.Type.REGULAR, "precious", self, 0644);
        Inode b = fs.mkdir(fs.getRootInode(), "b", self, 0755);
        Inode inB = fs.create(b, Stat.Type.REGULAR, "scratch", self, 0644);
        ExportFile table = new ExportFile(new java.io.StringReader("/a *(ro,no_root_squash)\n/b *(rw,no_root_squash)\n"));
        java.net.InetAddress client = java.net.InetAddress.getLoopbackAddress();
        FsExport ro = table.getExport("/a", client);
        FsExport rw = table.getExport("/b", client);
        CallerIdentity caller = CallerIdentity.reaching(fs.root(), List.of(fs.root().resolve("a"), fs.root().resolve("b")));
        List<String> outcomes = new ArrayList<>();
        CallerIdentity.runAs(caller, () -> {
            outcomes.add(attempt(() -> {
                caller.applying(rw); // nfs4j looked up /b by the forged index
                fs.write(inA, java.nio.ByteBuffer.wrap(new byte[] {1}), 0, StabilityLevel.FILE_SYNC);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw);
                fs.setattr(inA, new Stat());
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw);
                fs.create(a, Stat.Type.REGULAR, "planted", self, 0644);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw);
                fs.read(inA, java.nio.ByteBuffer.allocate(8), 0);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw); // the rightful pairing
                fs.write(inB, java.nio.ByteBuffer.wrap(new byte[] {2}), 0, StabilityLevel.FILE_SYNC);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(ro);
                fs.read(inA, java.nio.ByteBuffer.allocate(8), 0);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw); // the root is on the way to both exports: readable, not changeable
                fs.list(fs.getRootInode(), null, 0);
            }));
            outcomes.add(attempt(() -> {
                caller.applying(rw);
                fs.create(fs.getRootInode(), Stat.Type.REGULAR, "beside", self, 0644);
            }));
        });
        assertEquals(List.of("refused", "refused", "refused", "refused", "ok", "ok", "ok", "refused"), outcomes);
        assertEquals(0, Files.size(root.resolve("a/precious")), "nothing written to the read-only export");
        assertEquals(1, Files.size(root.resolve("b/scratch")));
    }

    private interface Attempt {
        void run() throws IOException;
    }

    private static String attempt(Attempt attempt) {
        try {
            attempt.run();
            return "ok";
        } catch (org.dcache.nfs.status.AccessException refused) {
            return "refused";
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void utf8NamesRoundTripAndReplacementCharactersAreRefused() throws IOException {
        String name = "Grüße-日本語-🦀";
        file(name, "u");
        List<String> names = new ArrayList<>();
        for (DirectoryEntry entry : fs.list(fs.getRootInode(), null, 0)) {
            names.add(entry.getName());
        }
        assertEquals(List.of(name), names);
        byte[] onDisk = PathBytes.nameOf(Files.list(root).findFirst().orElseThrow());
        assertArrayEquals(name.getBytes(StandardCharsets.UTF_8), onDisk, "stored as the UTF-8 bytes, whatever the locale");
        assertThrows(InvalException.class, () -> fs.create(fs.getRootInode(), Stat.Type.REGULAR, "bad\uFFFD", self, 0644),
                "an NFSv3 name that was not UTF-8 reaches nfs4j with U+FFFD");
        assertThrows(InvalException.class, () -> fs.lookup(fs.getRootInode(), "a/b"));
        assertThrows(InvalException.class, () -> fs.mkdir(fs.getRootInode(), "..", self, 0755));
    }

    @Test
    void aNameOnDiskThatIsNotUtf8IsLeftOutOfListings() throws IOException {
        Files.createFile(root.resolve(PathBytes.component(new byte[] {'x', (byte) 0xff, 'y'})));
        file("plain", "p");
        List<String> names = new ArrayList<>();
        for (DirectoryEntry entry : fs.list(fs.getRootInode(), null, 0)) {
            names.add(entry.getName());
        }
        assertEquals(List.of("plain"), names);
    }

    @Test
    void listingCookiesResumeAfterTheLastEntrySeen() throws IOException {
        for (int i = 0; i < 5; i++) {
            file("f" + i, "");
        }
        List<DirectoryEntry> all = new ArrayList<>();
        fs.list(fs.getRootInode(), null, 0).forEach(all::add);
        assertEquals(5, all.size());
        List<String> rest = new ArrayList<>();
        for (DirectoryEntry entry : fs.list(fs.getRootInode(), null, all.get(1).getCookie())) {
            rest.add(entry.getName());
        }
        assertEquals(List.of("f2", "f3", "f4"), rest);
        byte[] before = fs.directoryVerifier(fs.getRootInode());
        file("later", "");
        Files.setLastModifiedTime(root, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(root).toMillis() + 5000));
        assertFalse(java.util.Arrays.equals(before, fs.directoryVerifier(fs.getRootInode())),
                "a changed directory has another verifier");
    }

    @Test
    void renameRemoveAndLinks() throws IOException {
        Inode a = file("a", "data");
        Inode dir = fs.mkdir(fs.getRootInode(), "dir", self, 0755);
        assertTrue(fs.move(fs.getRootInode(), "a", dir, "b"));
        assertEquals("data", content(a), "the handle follows the rename");
        Inode hard = fs.link(fs.getRootInode(), a, "hard", self);
        assertEquals(2, fs.getattr(hard).getNlink());
        assertFalse(fs.move(dir, "b", fs.getRootInode(), "hard"), "a rename onto another link of itself does nothing");
        Inode symlink = fs.symlink(fs.getRootInode(), "sym", "dir/b", self, 0777);
        assertEquals("dir/b", fs.readlink(symlink));
        assertEquals(Stat.S_IFLNK, fs.getattr(symlink).getMode() & Stat.S_TYPE);
        assertThrows(NotEmptyException.class, () -> fs.remove(fs.getRootInode(), "dir"));
        assertThrows(InvalException.class, () -> fs.move(fs.getRootInode(), "dir", dir, "inside"));
        fs.remove(dir, "b");
        fs.remove(fs.getRootInode(), "dir");
        assertEquals("data", content(hard), "the other link keeps the data");
        assertThrows(NoEntException.class, () -> fs.remove(fs.getRootInode(), "dir"));
    }

    @Test
    void writeByANonRootCallerClearsSetUserIdAndGroupExecutableSetGroupId() throws IOException {
        Inode file = file("setid", "x");
        Path path = root.resolve("setid");
        Files.setAttribute(path, "unix:mode", 06755, LinkOption.NOFOLLOW_LINKS);
        CallerIdentity.runAs(CallerIdentity.of(true, 0), () -> write(file));
        assertEquals(06755, mode(path), "root keeps the bits (CAP_FSETID)");
        CallerIdentity.runAs(CallerIdentity.of(false, gid), () -> write(file));
        assertEquals(0755, mode(path), "set-user-ID and set-group-ID (group-executable) cleared");
        Files.setAttribute(path, "unix:mode", 02644, LinkOption.NOFOLLOW_LINKS);
        CallerIdentity.runAs(CallerIdentity.of(false, gid), () -> write(file));
        assertEquals(02644, mode(path), "set-group-ID without group-execute is a locking mark and stays");
    }

    @Test
    void chmodDropsAForeignSetGroupIdAndChgrpToAForeignGroupIsRefused() throws IOException {
        Inode file = file("g", "x");
        Path path = root.resolve("g");
        int foreign = gid + 12345;
        Stat chmod = new Stat();
        chmod.setMode(02755);
        CallerIdentity.runAs(CallerIdentity.of(false, foreign), () -> setattr(file, chmod));
        assertEquals(0755, mode(path), "the caller is not in the file's group");
        CallerIdentity.runAs(CallerIdentity.of(false, gid), () -> setattr(file, chmod));
        assertEquals(02755, mode(path));
        Stat chgrp = new Stat();
        chgrp.setGid(foreign);
        PermException refused = assertThrows(PermException.class, () -> {
            try {
                CallerIdentity.runAs(CallerIdentity.of(false, gid), () -> setattr(file, chgrp));
            } catch (IllegalStateException wrapped) {
                throw wrapped.getCause();
            }
        });
        assertNotEquals(null, refused.getMessage());
        assertEquals(gid, (Integer) Files.getAttribute(path, "unix:gid", LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void theEmptyAclNfs4jSetsWithEveryChmodIsAcceptedAndARealOneRefused() throws IOException {
        Inode file = file("acl", "x");
        fs.setAcl(file, new org.dcache.nfs.v4.xdr.nfsace4[0]);
        assertEquals(0, fs.getAcl(file).length);
        assertThrows(org.dcache.nfs.status.NotSuppException.class,
                () -> fs.setAcl(file, new org.dcache.nfs.v4.xdr.nfsace4[] {new org.dcache.nfs.v4.xdr.nfsace4()}));
    }

    @Test
    void setattrTruncatesAndSetsTimes() throws IOException {
        Inode file = file("t", "0123456789");
        Stat size = new Stat();
        size.setSize(4);
        fs.setattr(file, size);
        assertEquals("0123", content(file));
        Stat times = new Stat();
        times.setMTime(1_000_000_000_000L);
        fs.setattr(file, times);
        assertEquals(1_000_000_000_000L, fs.getattr(file).getMTime());
    }

    @Test
    void newObjectsTakeTheGroupOfASetGroupIdDirectory() throws IOException {
        assumeTrue(gid != 0 || uid == 0, "needs a group to tell apart");
        Inode shared = fs.mkdir(fs.getRootInode(), "shared", self, 02775);
        assertEquals(02775, mode(root.resolve("shared")));
        Inode sub = fs.mkdir(shared, "sub", self, 0755);
        assertEquals(02755, fs.getattr(sub).getMode() & 07777, "a directory inherits set-group-ID");
        assertEquals(gid, fs.getattr(sub).getGid());
    }

    private void write(Inode file) {
        try {
            fs.write(file, ByteBuffer.wrap(new byte[] {'y'}), 0, VirtualFileSystem.StabilityLevel.UNSTABLE);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void setattr(Inode file, Stat stat) {
        try {
            fs.setattr(file, stat);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int mode(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }
}
