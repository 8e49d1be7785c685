package org.rpcrdma4j.nfs3.localfs;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * InodeIndex - finds the path of an inode named by a file handle inside one served directory
 * tree: the map a server that puts (st_dev, st_ino) into its handles needs, because java.nio
 * cannot open a file by inode (there is no open_by_handle_at).
 *
 * <p>The index is filled as handles are handed out (MNT, LOOKUP, CREATE, READDIRPLUS...). An
 * inode it does not know - the normal case after a restart - is found by walking the tree
 * without following symbolic links, remembering everything seen on the way, until the inode
 * turns up; an inode that is nowhere in the tree is remembered as missing (until the server
 * hands out a handle for it again), so a stale handle costs one walk, not one per call.
 *
 * <p>Every path taken from the index is checked before use: its attributes must still name the
 * handle's object (the caller's test: inode, and type or generation), and its parent must
 * resolve, symbolic links followed, to itself, so that a directory swapped for a symbolic link
 * cannot lead outside the tree. That the check still holds when the call's system calls resolve
 * the path again is the server's business (a namespace lock, as nfs3's).
 *
 * <p>The parent's real path costs one lstat(2) per component of it (realpath), most of a
 * handle's resolution; a parent found real is trusted again without that walk until a name is
 * taken away through the server ({@link #forget}, {@link #moved}: REMOVE, RMDIR, RENAME, the
 * only ways a client can put a symbolic link where a directory was), or for at most
 * {@value #PARENT_TRUST_MILLIS} ms after its check, whichever comes first. The time bound is
 * for changes made beside the server, on the server's own host: a directory moved out of the
 * tree and a symbolic link to it put in its place are noticed within that time (knfsd with its
 * default {@code no_subtree_check} serves such a directory's handles for good).
 *
 * <p>Thread-safe; walks are serialized.
 *
 * @param <A> the server's attributes of a file, as its {@link Attributes} reads them
 */
public final class InodeIndex<A> {

    /** How the server reads a path's attributes and finds the inode in them. */
    public interface Attributes<A> {
        /**
         * The attributes of a path, never following a final symbolic link.
         *
         * @throws IOException when the path cannot be read (it is then skipped)
         */
        A read(Path path) throws IOException;

        /** st_dev. */
        long dev(A attributes);

        /** st_ino. */
        long ino(A attributes);

        /** The attributes a reader reads, with their dev and ino accessors. */
        static <A> Attributes<A> of(Reader<A> reader, java.util.function.ToLongFunction<A> dev,
                java.util.function.ToLongFunction<A> ino) {
            return new Attributes<>() {
                @Override
                public A read(Path path) throws IOException {
                    return reader.read(path);
                }

                @Override
                public long dev(A attributes) {
                    return dev.applyAsLong(attributes);
                }

                @Override
                public long ino(A attributes) {
                    return ino.applyAsLong(attributes);
                }
            };
        }
    }

    /** Reads a path's attributes without following a final symbolic link. */
    @FunctionalInterface
    public interface Reader<A> {
        /**
         * @throws IOException when the path cannot be read
         */
        A read(Path path) throws IOException;
    }

    /** A path inside the tree with its attributes as just read. */
    public record Located<A>(Path path, A attributes) {
    }

    /** An inode of the tree: (st_dev, st_ino). */
    private record Key(long dev, long ino) {
    }

    /**
     * Where an inode of the index is, with what the per-call check of that path needs worked out
     * once when the path is put in the index (a {@link Path} never changes): its parent (for
     * {@link #isRealParent}, whose lookup then meets the same instance, its hash kept) and
     * whether it lies inside the tree lexically. A handle's check then costs no path parsing,
     * normalising or comparing, only its lstat(2).
     *
     * @param parent the parent directory, null for the root (whose check has none)
     */
    private record Place(Path path, Path parent, boolean insideTree) {
    }

    /** Bound of {@link #missing}; the set is cleared when it would grow beyond. */
    private static final int MISSING_MAX = 4096;
    /**
     * Bound of the index (about 200 bytes an entry): beyond it the index starts over with the
     * root alone, and unknown handles are found again by walking.
     */
    private static final int INDEX_MAX = 1 << 20;
    /** Longest a parent directory found real is trusted without a name taken away through the server. */
    public static final long PARENT_TRUST_MILLIS = 1000;
    private static final long PARENT_TRUST_NANOS = TimeUnit.MILLISECONDS.toNanos(PARENT_TRUST_MILLIS);
    /** Bound of {@link #realParents}; the map starts over when it would grow beyond. */
    private static final int REAL_PARENTS_MAX = 1 << 16;

    private final Path root;
    private final Attributes<A> attributes;
    private final Key rootKey;
    private final Map<Key, Place> index = new ConcurrentHashMap<>();
    /** Inodes a complete walk did not find: stale handles answered without walking again. */
    private final Set<Key> missing = ConcurrentHashMap.newKeySet();
    private final Object walkLock = new Object();
    /**
     * Names taken away through the server so far (REMOVE, RMDIR, RENAME): a parent checked before
     * the latest is checked again.
     */
    private final AtomicLong namesTakenAway = new AtomicLong();
    /** Parent directories whose real path was themselves: when, and after how many names taken away. */
    private final Map<Path, RealParent> realParents = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    /** A parent directory found to resolve to itself. */
    private record RealParent(long namesTakenAway, long checkedAtNanos) {
    }

    /**
     * An index of the tree under a directory.
     *
     * @param root the tree's root, a real path (no symbolic link in it)
     * @param rootAttributes the root's attributes
     */
    public InodeIndex(Path root, A rootAttributes, Attributes<A> attributes) {
        this(root, rootAttributes, attributes, System::nanoTime);
    }

    /** As {@link #InodeIndex(Path, Object, Attributes)}, with the clock that bounds a parent's trust (tests). */
    InodeIndex(Path root, A rootAttributes, Attributes<A> attributes, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.root = root;
        this.attributes = attributes;
        this.rootKey = new Key(attributes.dev(rootAttributes), attributes.ino(rootAttributes));
        index.put(rootKey, placeOf(root));
    }

    /** The root of the tree. */
    public Path root() {
        return root;
    }

    /** Remembers where an inode is, as a handle for it is handed out. */
    public void remember(Path path, A object) {
        Key key = keyOf(object);
        put(key, path);
        missing.remove(key);
    }

    /** Forgets a path that was removed (the inode may live on under another name: hard links). */
    public void forget(Path path, A object) {
        if (object != null) {
            index.computeIfPresent(keyOf(object), (key, place) -> place.path().equals(path) ? null : place);
        }
        namesTakenAway.incrementAndGet();
    }

    /**
     * Follows a rename: the object moved and, for a directory, everything below it. A file's
     * entry is updated in place; a directory's rename rewrites the index entries under it.
     */
    public void moved(Path from, Path to, A object, boolean isDirectory) {
        try {
            follow(from, to, object, isDirectory);
        } finally {
            namesTakenAway.incrementAndGet();
        }
    }

    private void follow(Path from, Path to, A object, boolean isDirectory) {
        if (!isDirectory) {
            index.computeIfPresent(keyOf(object), (key, place) -> place.path().equals(from) ? placeOf(to) : place);
            return;
        }
        for (Map.Entry<Key, Place> entry : index.entrySet()) {
            Place place = entry.getValue();
            if (place.path().startsWith(from)) {
                index.replace(entry.getKey(), place, placeOf(to.resolve(from.relativize(place.path()))));
            }
        }
    }

    /** Whether a path lies inside the tree (lexically). */
    public boolean contains(Path path) {
        return path.normalize().startsWith(root);
    }

    /**
     * Finds the object with this inode that {@code names} accepts, from the index or by walking.
     *
     * @param names whether attributes read at a candidate path are the handle's object
     * @return where it is, or null if it is not (any more) in the tree
     */
    public Located<A> locate(long dev, long ino, Predicate<A> names) {
        Key key = new Key(dev, ino);
        Place known = index.get(key);
        if (known != null) {
            A found = verify(known, names);
            if (found != null) {
                return new Located<>(known.path(), found);
            }
            index.remove(key, known);
        }
        Place place = search(key, names);
        A found = place == null ? null : verify(place, names);
        return found == null ? null : new Located<>(place.path(), found);
    }

    private Key keyOf(A object) {
        return new Key(attributes.dev(object), attributes.ino(object));
    }

    private Place put(Key key, Path path) {
        Place known = index.get(key);
        if (known != null && known.path().equals(path)) {
            return known;
        }
        if (index.size() >= INDEX_MAX) {
            index.clear();
            index.put(rootKey, placeOf(root));
        }
        Place place = placeOf(path);
        index.put(key, place);
        return place;
    }

    private Place placeOf(Path path) {
        boolean isRoot = path.equals(root);
        return new Place(path, isRoot ? null : path.getParent(), isRoot || contains(path));
    }

    private A verify(Place place, Predicate<A> names) {
        try {
            A read = attributes.read(place.path());
            if (!names.test(read)) {
                return null;
            }
            if (place.parent() != null && !isRealParent(place.parent())) {
                return null;
            }
            return place.insideTree() ? read : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether a directory resolves, symbolic links followed, to itself: from a check since the
     * last name taken away and within {@link #PARENT_TRUST_MILLIS}, else by resolving it now.
     */
    private boolean isRealParent(Path parent) throws IOException {
        long taken = namesTakenAway.get();
        long now = nanoClock.getAsLong();
        RealParent known = realParents.get(parent);
        if (known != null && known.namesTakenAway() == taken && now - known.checkedAtNanos() < PARENT_TRUST_NANOS) {
            return true;
        }
        if (!parent.toRealPath().equals(parent)) {
            realParents.remove(parent);
            return false;
        }
        if (realParents.size() >= REAL_PARENTS_MAX) {
            realParents.clear();
        }
        realParents.put(parent, new RealParent(taken, now));
        return true;
    }

    private A readQuietly(Path path) {
        try {
            return attributes.read(path);
        } catch (IOException e) {
            return null;
        }
    }

    private Place search(Key wanted, Predicate<A> names) {
        synchronized (walkLock) {
            Place known = index.get(wanted);
            if (known != null && verify(known, names) != null) {
                return known;
            }
            if (missing.contains(wanted)) {
                return null;
            }
            Place[] found = new Place[1];
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return visit(dir);
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        return visit(file);
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        return FileVisitResult.CONTINUE;
                    }

                    private FileVisitResult visit(Path path) {
                        A read = readQuietly(path);
                        if (read == null) {
                            return FileVisitResult.CONTINUE;
                        }
                        Key seen = keyOf(read);
                        Place place = index.get(seen);
                        if (place == null) {
                            place = put(seen, path);
                        } else if (!place.path().equals(path)) {
                            place = placeOf(path); // another name of it (a hard link): the index keeps the first
                        }
                        if (seen.equals(wanted) && names.test(read)) {
                            found[0] = place;
                            return FileVisitResult.TERMINATE;
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                return null;
            }
            if (found[0] == null) {
                if (missing.size() >= MISSING_MAX) {
                    missing.clear();
                }
                missing.add(wanted);
            }
            return found[0];
        }
    }
}
