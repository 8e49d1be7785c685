package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * OpenFiles - the file cache of READ, WRITE and COMMIT, as knfsd's filecache: regular files
 * stay open between calls, keyed by the (fsid, fileid) of their handle and the {@link Access}, so
 * a stream of READs or WRITEs opens the file once instead of once per call (a WRITE used to open
 * and close its file per call: 11-15 % of the server's CPU samples in the 4 KiB random-write
 * workload of lab run 2026-12-03-1749).
 *
 * <p>Stable WRITEs get channels opened with O_DSYNC (DATA_SYNC) or O_SYNC (FILE_SYNC), so each
 * write(2) is durable for its own range before it returns, as knfsd's RWF_SYNC writes are; a
 * force() after the write would fsync the whole file, waiting for every other client's dirty
 * pages of it too (the Linux client sends each O_DIRECT write of one RPC as FILE_SYNC, so a deep
 * queue of small direct writes is a queue of whole-file fsyncs).
 *
 * <p>Never stale: every call checks its handle first ({@link ExportRoot#locate}: the inode is
 * still at its path inside the export), and only then asks here for that inode. An open
 * channel pins its inode, so the kernel cannot give the inode number to another file while
 * the channel is cached: a live file with the handle's (fsid, fileid) is the channel's file.
 * When a channel is opened its path is read again and MUST still name the handle's inode.
 *
 * <p>Bounded: at most {@link #CAPACITY} channels, the least recently used closed first; a
 * channel idle for {@link #IDLE_NANOS} is closed at the next open of any file (no thread of
 * its own); a file removed, or replaced by RENAME, through this server is closed at once
 * ({@link #forget}: all of its channels). A channel in use by a call is closed when that call
 * releases it. Permissions are not the cache's business: every call checks the caller's access
 * to the file before it borrows a channel, as it did before it opened one.
 *
 * <p>Thread-safe; one lock guards the map and the lease counts.
 */
public final class OpenFiles {

    /** Most channels kept open. */
    public static final int CAPACITY = 256;
    /** Idle time after which a channel is closed. */
    public static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** How a cached channel was opened. */
    public enum Access {
        /** Read-only: READ, COMMIT (fsync flushes the file whichever descriptor asks). */
        READ(StandardOpenOption.READ),
        /** Write-only, buffered: UNSTABLE WRITEs, made durable by COMMIT. */
        WRITE(StandardOpenOption.WRITE),
        /** Write-only, O_DSYNC: DATA_SYNC WRITEs. */
        WRITE_DATA_SYNC(StandardOpenOption.WRITE, StandardOpenOption.DSYNC),
        /** Write-only, O_SYNC: FILE_SYNC WRITEs. */
        WRITE_FILE_SYNC(StandardOpenOption.WRITE, StandardOpenOption.SYNC);

        private final StandardOpenOption[] options;

        Access(StandardOpenOption... options) {
            this.options = options;
        }

        /** @return the access a WRITE of stability {@code stableHow} (RFC 1813 stable_how) needs */
        public static Access forWrite(int stableHow) {
            switch (stableHow) {
                case Nfs3.UNSTABLE:
                    return WRITE;
                case Nfs3.DATA_SYNC:
                    return WRITE_DATA_SYNC;
                case Nfs3.FILE_SYNC:
                    return WRITE_FILE_SYNC;
                default:
                    throw new IllegalArgumentException("stable_how " + stableHow);
            }
        }
    }

    private static final Access[] ACCESSES = Access.values();

    private record Key(long fsid, long fileid, Access access) {
    }

    /** One cached channel and its lease count; fields guarded by the OpenFiles lock. */
    private static final class Entry {
        final FileChannel channel;
        int leases;
        boolean retired;
        long lastUsedNanos;

        Entry(FileChannel channel) {
            this.channel = channel;
        }
    }

    /** A channel borrowed for one call; {@link #close} returns it exactly once. */
    public final class Lease implements AutoCloseable {
        private final Entry entry;
        private boolean released;

        private Lease(Entry entry) {
            this.entry = entry;
        }

        /** The open channel, valid until {@link #close}. */
        public FileChannel channel() {
            return entry.channel;
        }

        @Override
        public void close() {
            if (!released) {
                released = true;
                release(entry);
            }
        }
    }

    private final Map<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private final LongSupplier clock;
    private long opened;

    /** A cache on the system's monotonic clock. */
    public OpenFiles() {
        this(System::nanoTime);
    }

    /** A cache on a given clock (tests). */
    public OpenFiles(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * Lends a read-only channel on a regular file whose handle was just checked (READ, COMMIT).
     *
     * @param path the file's path, checked this call
     * @param attributes its attributes, read by that check
     * @throws NfsException NFS3ERR_STALE if the path named another file by the time it was opened
     * @throws IOException if the file cannot be opened
     */
    public Lease open(Path path, FileAttributes attributes) throws NfsException, IOException {
        return lease(path, attributes, Access.READ);
    }

    /**
     * Lends a write-only channel on a regular file whose handle was just checked, and whose
     * caller was just found allowed to write it (WRITE): buffered for UNSTABLE, O_DSYNC for
     * DATA_SYNC, O_SYNC for FILE_SYNC, so a stable write needs no force() after it.
     *
     * @param path the file's path, checked this call
     * @param attributes its attributes, read by that check
     * @param stableHow the WRITE's stable_how
     * @throws NfsException NFS3ERR_STALE if the path named another file by the time it was opened
     * @throws IOException if the file cannot be opened for writing
     */
    public Lease openForWrite(Path path, FileAttributes attributes, int stableHow) throws NfsException, IOException {
        return lease(path, attributes, Access.forWrite(stableHow));
    }

    private Lease lease(Path path, FileAttributes attributes, Access access) throws NfsException, IOException {
        Key key = new Key(attributes.dev(), attributes.ino(), access);
        synchronized (this) {
            long now = clock.getAsLong();
            closeIdle(now);
            Entry cached = entries.get(key);
            if (cached != null) {
                return lend(cached, now);
            }
        }
        FileChannel channel = open(path, access);
        try {
            FileAttributes now = FileAttributes.read(path);
            if (now.dev() != key.fsid() || now.ino() != key.fileid()) {
                throw new NfsException(Nfs3.NFS3ERR_STALE, "another file took the path while it was opened");
            }
        } catch (NfsException | IOException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
        synchronized (this) {
            this.opened++;
            long now = clock.getAsLong();
            Entry raced = entries.get(key);
            if (raced != null) {
                closeQuietly(channel);
                return lend(raced, now);
            }
            Entry entry = new Entry(channel);
            entries.put(key, entry);
            evictBeyondCapacity();
            return lend(entry, now);
        }
    }

    /** Closes the channels of a file removed or replaced through this server, if cached. */
    public void forget(FileAttributes attributes) {
        if (attributes == null) {
            return;
        }
        synchronized (this) {
            for (Access access : ACCESSES) {
                Entry entry = entries.remove(new Key(attributes.dev(), attributes.ino(), access));
                if (entry != null) {
                    retire(entry);
                }
            }
        }
    }

    /** Channels cached now. */
    public synchronized int size() {
        return entries.size();
    }

    /** Channels opened since creation (a measure of how well the cache works). */
    public synchronized long opened() {
        return opened;
    }

    private Lease lend(Entry entry, long now) {
        entry.leases++;
        entry.lastUsedNanos = now;
        return new Lease(entry);
    }

    private synchronized void release(Entry entry) {
        entry.leases--;
        entry.lastUsedNanos = clock.getAsLong();
        if (entry.retired && entry.leases == 0) {
            closeQuietly(entry.channel);
        }
    }

    /** Closes channels idle too long; the map is in access order, so they are the eldest. */
    private void closeIdle(long now) {
        Iterator<Entry> eldest = entries.values().iterator();
        while (eldest.hasNext()) {
            Entry entry = eldest.next();
            if (now - entry.lastUsedNanos < IDLE_NANOS) {
                break;
            }
            if (entry.leases > 0) {
                continue;
            }
            eldest.remove();
            retire(entry);
        }
    }

    private void evictBeyondCapacity() {
        Iterator<Entry> eldest = entries.values().iterator();
        while (entries.size() > CAPACITY && eldest.hasNext()) {
            Entry entry = eldest.next();
            eldest.remove();
            retire(entry);
        }
    }

    private static void retire(Entry entry) {
        entry.retired = true;
        if (entry.leases == 0) {
            closeQuietly(entry.channel);
        }
    }

    private static FileChannel open(Path path, Access access) throws IOException {
        StandardOpenOption[] o = access.options;
        return o.length == 1 ? FileChannel.open(path, o[0], LinkOption.NOFOLLOW_LINKS)
                : FileChannel.open(path, o[0], o[1], LinkOption.NOFOLLOW_LINKS);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing is buffered in a FileChannel: a failed close loses no data (WRITE's
            // stability is force()'s business, done before its reply)
        }
    }
}
