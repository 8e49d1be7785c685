package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * DirectoryListings - sorted snapshots of directories, so READDIR and READDIRPLUS can hand out
 * cookies that are positions in a stable list.
 *
 * <p>A snapshot is identified by the directory's ctime in nanoseconds, which is also the
 * cookie verifier: any change of the directory (an entry added, removed or renamed) changes
 * its ctime, so a client continuing an old listing gets NFS3ERR_BAD_COOKIE instead of skipped
 * or repeated entries. Position 0 is ".", 1 is "..", then the names in sorted order; the
 * cookie of an entry is its position + 1. Names are kept as their bytes ({@link FileName}),
 * sorted by unsigned bytes. The few most recent snapshots are cached so a large
 * directory is read once per listing, not once per call.
 */
public final class DirectoryListings {

    /** How many directory snapshots are kept. */
    public static final int CACHED = 16;

    /** A snapshot: its verifier and the names (without "." and ".."). */
    public record Listing(long verifier, List<FileName> names) {

        /** Entries in the listing, "." and ".." included. */
        public int size() {
            return names.size() + 2;
        }

        /** The name at a position ("." and ".." first). */
        public FileName nameAt(int position) {
            return position == 0 ? FileName.DOT : position == 1 ? FileName.DOT_DOT : names.get(position - 2);
        }
    }

    private record Key(long fsid, long fileid) {
    }

    private final Map<Key, Listing> cache = new LinkedHashMap<>(CACHED, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Listing> eldest) {
            return size() > CACHED;
        }
    };

    /** The current snapshot of a directory, read from disk if its verifier changed. */
    public Listing listing(Path directory, FileAttributes attributes) throws IOException {
        Key key = new Key(attributes.dev(), attributes.ino());
        long verifier = attributes.ctimeNanos();
        synchronized (cache) {
            Listing cached = cache.get(key);
            if (cached != null && cached.verifier() == verifier) {
                return cached;
            }
        }
        List<FileName> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.add(FileName.of(entry));
            }
        }
        Collections.sort(names);
        Listing listing = new Listing(verifier, Collections.unmodifiableList(names));
        synchronized (cache) {
            cache.put(key, listing);
        }
        return listing;
    }
}
