package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.internal.FileAttributes;
import org.rpcrdma4j.nfs3.internal.MountDispatcher;
import org.rpcrdma4j.nfs3.internal.Nfs3Dispatcher;
import org.rpcrdma4j.nfs3.internal.NfsState;
import org.rpcrdma4j.nfs3.localfs.OpenFiles;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * The file cache of READ, WRITE and COMMIT ({@link OpenFiles}): one open per file and access for a stream of calls, bounded
 * by capacity and idle time, closed when the file is removed or renamed over through the
 * server, never a stale file, and never a channel closed under a READ that holds it.
 */
class OpenFilesTest {

    @TempDir
    Path temp;

    private final AtomicLong clock = new AtomicLong();
    private final OpenFiles files = new OpenFiles(clock::get);

    private Path file(String name, String content) throws IOException {
        return Files.writeString(temp.resolve(name), content);
    }

    private static long dev(Path path) throws IOException {
        return FileAttributes.read(path).dev();
    }

    private static long ino(Path path) throws IOException {
        return FileAttributes.read(path).ino();
    }

    private FileChannel read(Path path) throws Exception {
        try (OpenFiles.Lease lease = files.open(path, dev(path), ino(path))) {
            return lease.channel();
        }
    }

    @Test
    void aStreamOfReadsOpensTheFileOnce() throws Exception {
        Path f = file("f", "data");
        FileChannel first = read(f);
        FileChannel second = read(f);
        assertSame(first, second, "the second READ borrows the cached channel");
        assertTrue(first.isOpen(), "kept open between READs");
        assertEquals(1, files.opened());
        assertEquals(1, files.size());
    }

    @Test
    void writesShareOneWritableChannelBesideTheReadersAndForgetClosesBoth() throws Exception {
        Path f = file("f", "data");
        FileChannel reader = read(f);
        FileChannel writer;
        try (OpenFiles.Lease lease = files.openForWrite(f, dev(f), ino(f))) {
            writer = lease.channel();
            writer.write(java.nio.ByteBuffer.wrap(bytes("DA")), 0);
        }
        try (OpenFiles.Lease lease = files.openForWrite(f, dev(f), ino(f))) {
            assertSame(writer, lease.channel(), "the second WRITE borrows the cached writable channel");
        }
        assertTrue(reader != writer, "READ keeps its read-only channel");
        assertEquals("DAta", Files.readString(f));
        assertEquals(2, files.opened());
        assertEquals(2, files.size());
        files.forget(dev(f), ino(f));
        assertFalse(reader.isOpen());
        assertFalse(writer.isOpen());
        assertEquals(0, files.size());
    }

    @Test
    void stableWritersWhoseWritesAFsyncDidNotCoverShareTheNextOne() throws Exception {
        OpenFiles.SyncGroup group = new OpenFiles.SyncGroup();
        CountDownLatch inFirstSync = new CountDownLatch(1);
        CountDownLatch releaseFirstSync = new CountDownLatch(1);
        AtomicInteger syncsRun = new AtomicInteger();
        OpenFiles.SyncGroup.Syncer gated = () -> {
            if (syncsRun.incrementAndGet() == 1) {
                inFirstSync.countDown();
                try {
                    releaseFirstSync.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
            }
        };
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            long firstTicket = group.writeDone();
            Future<?> first = writers.submit(() -> {
                group.syncThrough(firstTicket, gated);
                return null;
            });
            assertTrue(inFirstSync.await(10, TimeUnit.SECONDS));
            List<Future<?>> later = new ArrayList<>();
            for (int i = 0; i < 3; i++) { // three writes complete while the first sync runs
                long ticket = group.writeDone();
                later.add(writers.submit(() -> {
                    group.syncThrough(ticket, gated);
                    return null;
                }));
            }
            Thread.sleep(100);
            for (Future<?> f : later) {
                assertFalse(f.isDone(), "a write the running sync does not cover waits for the next");
            }
            releaseFirstSync.countDown();
            first.get(10, TimeUnit.SECONDS);
            for (Future<?> f : later) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertEquals(2, group.syncs(), "four stable writes, two fsyncs: the later three shared one");
            assertEquals(2, syncsRun.get());
            group.syncThrough(firstTicket, () -> {
                throw new AssertionError("already durable: no sync");
            });
        } finally {
            writers.shutdownNow();
        }
    }

    @Test
    void aFailedSyncCoversNothingAndTheNextWriterSyncsAgain() throws Exception {
        OpenFiles.SyncGroup group = new OpenFiles.SyncGroup();
        long ticket = group.writeDone();
        IOException failed = assertThrows(IOException.class, () -> group.syncThrough(ticket, () -> {
            throw new IOException("EIO");
        }));
        assertEquals("EIO", failed.getMessage());
        AtomicInteger synced = new AtomicInteger();
        group.syncThrough(ticket, synced::incrementAndGet);
        assertEquals(1, synced.get(), "the failed sync made nothing durable");
        assertEquals(2, group.syncs());
    }

    @Test
    void stableWritesThroughTheServerAreDurableAndShareTheFilesSyncGroup() throws Exception {
        throughTheServer((state, client, root) -> {
            byte[] f = client.create(root, "f", 0644);
            client.write(f, 0, bytes("ab"), Nfs3.FILE_SYNC);
            client.write(f, 2, bytes("cd"), Nfs3.DATA_SYNC);
            client.write(f, 4, bytes("ef"), Nfs3.UNSTABLE);
            assertEquals(1, state.openFiles().opened(), "one writable channel for every stability");
            assertArrayEquals(bytes("abcdef"), read(client, f));
        });
    }

    @Test
    void aStreamOfWritesThroughTheServerOpensTheFileOnce() throws Exception {
        throughTheServer((state, client, root) -> {
            byte[] f = client.create(root, "f", 0644);
            for (int i = 0; i < 5; i++) {
                client.write(f, i, bytes(String.valueOf(i)), Nfs3.UNSTABLE);
            }
            assertEquals(1, state.openFiles().opened(), "five WRITEs, one open");
            assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_COMMIT, out -> {
                out.xdrEncodeDynamicOpaque(f);
                out.xdrEncodeLong(0);
                out.xdrEncodeInt(0);
            }).status(), "COMMIT");
            assertEquals(2, state.openFiles().opened(), "COMMIT borrows a read-only channel");
            assertArrayEquals(bytes("01234"), read(client, f));
            assertEquals(2, state.openFiles().opened(), "and READ the same one");
        });
    }

    @Test
    void idleChannelsAreClosedAtTheNextOpen() throws Exception {
        FileChannel idle = read(file("idle", "x"));
        clock.addAndGet(OpenFiles.IDLE_NANOS - 1);
        FileChannel recent = read(file("recent", "y"));
        assertTrue(idle.isOpen(), "not idle long enough yet");
        clock.addAndGet(2);
        read(file("other", "z"));
        assertFalse(idle.isOpen(), "idle for IDLE_NANOS: closed");
        assertTrue(recent.isOpen());
        assertEquals(2, files.size());
    }

    @Test
    void theLeastRecentlyUsedGoesBeyondCapacityButNotUnderAReader() throws Exception {
        Path held = file("held", "h");
        OpenFiles.Lease lease = files.open(held, dev(held), ino(held));
        List<FileChannel> channels = new ArrayList<>();
        for (int i = 0; i < OpenFiles.CAPACITY; i++) {
            channels.add(read(file("f" + i, "x")));
        }
        assertEquals(OpenFiles.CAPACITY, files.size(), "bounded");
        assertTrue(lease.channel().isOpen(), "evicted, but a READ still holds it");
        lease.channel().read(java.nio.ByteBuffer.allocate(1), 0);
        lease.close();
        assertFalse(lease.channel().isOpen(), "closed when the READ releases it");
        lease.close(); // a second release changes nothing
        channels.add(read(file("one-more", "x")));
        assertFalse(channels.get(0).isOpen(), "the least recently used is closed");
        assertTrue(channels.get(channels.size() - 1).isOpen());
    }

    @Test
    void aPathTakenByAnotherFileIsStaleAndNothingIsCached() throws Exception {
        Path f = file("f", "old");
        FileAttributes checked = FileAttributes.read(f);
        Files.move(file("g", "new"), f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        OpenFiles.ReplacedException stale = assertThrows(OpenFiles.ReplacedException.class,
                () -> files.open(f, checked.dev(), checked.ino()));
        assertTrue(stale.getMessage().contains(f.toString()), stale.getMessage());
        assertEquals(0, files.size());
    }

    @Test
    void closeAllClosesWhatIsIdleNowWhatIsHeldAtReleaseAndCachesNothingAfter() throws Exception {
        Path idle = file("idle", "i");
        Path held = file("held", "h");
        FileChannel idleChannel = read(idle);
        OpenFiles.Lease lease = files.open(held, dev(held), ino(held));
        files.closeAll();
        assertFalse(idleChannel.isOpen(), "closed at once");
        assertTrue(lease.channel().isOpen(), "a call still reading keeps its channel");
        lease.close();
        assertFalse(lease.channel().isOpen(), "closed when the call is done");
        FileChannel late = read(idle);
        assertFalse(late.isOpen(), "a call that began before the close gets a channel of its own, closed after it");
        assertEquals(0, files.size());
    }

    @Test
    void forgetClosesAndTheNextOpenSeesTheNewFile() throws Exception {
        Path f = file("f", "old");
        FileChannel old = read(f);
        files.forget(dev(f), ino(f));
        assertFalse(old.isOpen());
        assertEquals(0, files.size());
        files.forget(dev(f), ino(f)); // nothing cached: nothing to forget
        assertEquals(0, files.size());
    }

    @Test
    void removeAndRenameOverThroughTheServerCloseTheCachedFile() throws Exception {
        throughTheServer((state, client, root) -> {
            byte[] f = client.create(root, "f", 0644);
            client.write(f, 0, bytes("one"), Nfs3.FILE_SYNC);
            for (int i = 0; i < 5; i++) {
                assertArrayEquals(bytes("one"), read(client, f));
            }
            assertEquals(2, state.openFiles().opened(), "a WRITE and five READs: one writable and one read-only open");
            client.write(f, 0, bytes("two"), Nfs3.FILE_SYNC);
            assertArrayEquals(bytes("two"), read(client, f), "the cached channel reads what was written since");

            byte[] g = client.create(root, "g", 0644);
            client.write(g, 0, bytes("gee"), Nfs3.FILE_SYNC);
            read(client, g);
            assertEquals(4, state.openFiles().size(), "f and g, each read and written");
            assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
                XdrArgs.dirop(out, root, "f");
                XdrArgs.dirop(out, root, "g");
            }).status(), "RENAME f over g");
            assertEquals(2, state.openFiles().size(), "g's channels closed: renamed over");
            assertArrayEquals(bytes("two"), read(client, client.lookup(root, "g")), "g is f now");
            assertStatus(Nfs3.NFS3ERR_STALE, client.read(g, 0, 10).status(), "the old g is gone");
            assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_REMOVE, out -> XdrArgs.dirop(out, root, "g"))
                    .status(), "REMOVE");
            assertEquals(0, state.openFiles().size(), "closed when removed");
            assertStatus(Nfs3.NFS3ERR_STALE, client.read(f, 0, 10).status(), "a removed file is never served");
        });
    }

    /** What a test does with a running server: its state, a client of the export, the export's root handle. */
    private interface ServerBody {
        void run(NfsState state, NfsClient client, byte[] root) throws Exception;
    }

    /** Runs {@code body} against an NFSv3 server over TCP exporting a fresh directory read-write to 127.0.0.1. */
    private void throughTheServer(ServerBody body) throws Exception {
        Path exportRoot = temp.resolve("server");
        NfsState state = new NfsState(List.of(TestServer.export(exportRoot, "127.0.0.1/32(rw,no_root_squash)")),
                exportRoot.resolve("state"));
        Path exportDir = exportRoot.resolve("export");
        int owner = Identity.handToOwner(exportDir);
        try (TestServer server = TestServer.start(new Nfs3Program(new Nfs3Dispatcher(state)),
                new Mount3Program(new MountDispatcher(state)));
             NfsClient client = new NfsClient(server.port(), owner, Identity.groupOf(exportDir))) {
            body.run(state, client, client.mountRoot("/export"));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] read(NfsClient client, byte[] file) throws IOException {
        XdrReader reply = client.read(file, 0, 100).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "READ");
        reply.readPostOpAttr();
        reply.readInt();
        reply.readBool();
        return reply.readOpaque();
    }
}
