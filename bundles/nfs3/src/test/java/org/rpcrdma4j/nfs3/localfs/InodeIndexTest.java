package org.rpcrdma4j.nfs3.localfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * InodeIndexTest - a parent directory found real is trusted again only until a name is taken
 * away through the server or its trust time runs out: a directory moved out of the tree beside
 * the server, with a symbolic link to it in its place, stops leading to its files at the first
 * of the two.
 */
class InodeIndexTest {

    /** (st_dev, st_ino) of a path, not following a final symbolic link. */
    record Ids(long dev, long ino) {
        static Ids read(Path path) throws IOException {
            return new Ids((Long) Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS),
                    (Long) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS));
        }
    }

    @TempDir
    Path temp;
    private Path root;
    private Path outside;
    private final AtomicLong clock = new AtomicLong();
    /** Paths whose attributes the index read: 1 for a handle found in the index, more for a walk. */
    private final AtomicLong reads = new AtomicLong();
    private InodeIndex<Ids> index;
    private Ids file;

    @BeforeEach
    void tree() throws IOException {
        root = Files.createDirectories(temp.resolve("export")).toRealPath();
        outside = Files.createDirectories(temp.resolve("outside")).toRealPath();
        Files.createDirectories(root.resolve("a"));
        Path f = Files.writeString(root.resolve("a/f"), "inside");
        index = new InodeIndex<>(root, Ids.read(root), InodeIndex.Attributes.of(path -> {
            reads.incrementAndGet();
            return Ids.read(path);
        }, Ids::dev, Ids::ino), clock::get);
        file = Ids.read(f);
        index.remember(f, file);
        assertEquals(f, locate(), "found where it was handed out");
    }

    /** Moves a out of the tree, beside the server, and puts a symbolic link to it in its place. */
    private void moveOutAndLinkBack() throws IOException {
        Files.move(root.resolve("a"), outside.resolve("a"));
        Files.createSymbolicLink(root.resolve("a"), outside.resolve("a"));
    }

    private Path locate() {
        return locate(file);
    }

    private Path locate(Ids ids) {
        InodeIndex.Located<Ids> found = index.locate(ids.dev(), ids.ino(), read -> read.equals(ids));
        return found == null ? null : found.path();
    }

    /** Locates {@link #file} and says how many paths it read: 1 when the index knew where it is. */
    private long readsToLocate(Path expected) {
        long before = reads.get();
        assertEquals(expected, locate());
        return reads.get() - before;
    }

    @Test
    void aHandleKnownToTheIndexCostsOneRead() {
        assertEquals(1, readsToLocate(root.resolve("a/f")));
        assertEquals(1, readsToLocate(root.resolve("a/f")), "and again");
    }

    @Test
    void aFileRenamedThroughTheServerIsFoundAtItsNewNameWithoutAWalk() throws IOException {
        Files.move(root.resolve("a/f"), root.resolve("a/g"));
        index.moved(root.resolve("a/f"), root.resolve("a/g"), file, false);
        assertEquals(1, readsToLocate(root.resolve("a/g")));
    }

    @Test
    void aDirectoryRenamedThroughTheServerTakesItsEntriesAlong() throws IOException {
        Files.move(root.resolve("a"), root.resolve("b"));
        index.moved(root.resolve("a"), root.resolve("b"), Ids.read(root.resolve("b")), true);
        assertEquals(1, readsToLocate(root.resolve("b/f")), "the entry under the directory follows it");
    }

    @Test
    void forgettingAnotherNameOfTheInodeKeepsTheIndexedOne() throws IOException {
        Path link = Files.createLink(root.resolve("a/h"), root.resolve("a/f"));
        index.forget(link, file);
        assertEquals(1, readsToLocate(root.resolve("a/f")), "the index's name was not the one taken away");
        Files.delete(root.resolve("a/f"));
        index.forget(root.resolve("a/f"), file);
        assertTrue(readsToLocate(link) > 1, "its own name taken away, the inode is found by walking, at its other name");
    }

    @Test
    void aPathOutsideTheTreeIsNeverLocatedThoughRemembered() throws IOException {
        Path x = Files.writeString(outside.resolve("x"), "outside");
        Ids ids = Ids.read(x);
        index.remember(root.resolve("../outside/x"), ids);
        assertNull(locate(ids), "a remembered path leading out of the tree lexically is refused, and no walk finds it");
    }

    @Test
    void aNameTakenAwayThroughTheServerEndsTheTrustAtOnce() throws IOException {
        moveOutAndLinkBack();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(InodeIndex.PARENT_TRUST_MILLIS / 2));
        assertNotNull(locate(), "within its trust time, with no name taken away through the server, the parent is "
                + "not resolved again (the cost this trust saves)");
        index.forget(root.resolve("unrelated"), null);
        assertNull(locate(), "after a REMOVE, RMDIR or RENAME through the server the parent is resolved again, "
                + "and a path through a symbolic link leads nowhere");
    }

    @Test
    void aRenameThroughTheServerEndsTheTrustAtOnce() throws IOException {
        moveOutAndLinkBack();
        Path b = Files.createDirectories(root.resolve("b"));
        Files.move(b, root.resolve("c"));
        index.moved(b, root.resolve("c"), Ids.read(root.resolve("c")), true);
        assertNull(locate());
    }

    @Test
    void aChangeBesideTheServerIsNoticedWhenTheTrustTimeRunsOut() throws IOException {
        moveOutAndLinkBack();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(InodeIndex.PARENT_TRUST_MILLIS));
        assertNull(locate(), "a parent checked " + InodeIndex.PARENT_TRUST_MILLIS + " ms ago is resolved again");
    }

    @Test
    void aParentStillRealIsTrustedAgainAfterItsCheck() throws IOException {
        index.forget(root.resolve("unrelated"), null);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(InodeIndex.PARENT_TRUST_MILLIS * 5));
        assertEquals(root.resolve("a/f"), locate(), "checked again, still real");
        moveOutAndLinkBack();
        assertNotNull(locate(), "the new check is trusted for its own time");
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(InodeIndex.PARENT_TRUST_MILLIS));
        assertNull(locate());
    }
}
