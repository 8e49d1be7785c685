package org.rpcrdma4j.nfs3.localfs;

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

/**
 * OpenFiles - the file cache of READ, WRITE and COMMIT, as knfsd's filecache: regular files
 * stay open between calls, keyed by the (st_dev, st_ino) their handle names and the
 * {@link Access}, so a stream of READs or WRITEs opens the file once instead of once per call (an
 * open and close per 4 KiB random WRITE is 11-15 % of the server's CPU samples). Shared by the
 * servers of a local directory: this bundle's NFSv3 program and the nfs4j export's file system.
 *
 * <p>Stable WRITEs are made durable by group commit ({@link SyncGroup}, one per cached writable
 * channel): one fsync covers every write to the file that completed before it began, and writes
 * that complete while it runs share the next one, as knfsd's write gathering shares one fsync
 * among concurrent stable writers (without its 10 ms wait). The Linux client sends each O_DIRECT
 * write of one RPC as FILE_SYNC, so a deep queue of small direct writes was a queue of fsyncs,
 * one per WRITE, each waiting for the journal commit of the one before.
 *
 * <p>Never stale: every call checks its handle first (the inode is still at its path inside the
 * export), and only then asks here for that inode. An open channel pins its inode, so the kernel
 * cannot give the inode number to another file while the channel is cached: a live file with the
 * handle's (st_dev, st_ino) is the channel's file. When a channel is opened its path is read
 * again and MUST still name the handle's inode, else {@link ReplacedException} (the caller's
 * stale-handle error).
 *
 * <p>Bounded: at most {@link #CAPACITY} channels, the least recently used closed first; a
 * channel idle for {@link #IDLE_NANOS} is closed at the next open of any file (no thread of
 * its own); a file removed, or replaced by RENAME, through the server is closed at once
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

    /**
     * SyncGroup - group commit of the stable writes through one channel: a writer takes a ticket
     * once its data is in the page cache ({@link #writeDone}), then {@link #syncThrough} returns
     * once an fsync that began after that has finished. One writer at a time runs the fsync; the
     * others wait for it, and those whose writes it did not cover share the next.
     */
    public static final class SyncGroup {
        /** What makes the file durable (FileChannel.force in service; a gate in tests). */
        @FunctionalInterface
        public interface Syncer {
            void sync() throws IOException;
        }

        private long completedWrites;
        private long syncedThrough;
        private boolean syncing;
        private long syncs;

        /** @return the ticket of a write whose data has just reached the page cache */
        public synchronized long writeDone() {
            return ++completedWrites;
        }

        /**
         * Returns once every write up to {@code ticket} is durable: runs {@code syncer} when no
         * sync is running, else waits for the running one and, if it did not cover the ticket,
         * for (or runs) the next. A failed sync covers nothing: the next waiter tries again.
         *
         * @throws IOException the syncer's failure, or InterruptedIOException when interrupted
         */
        public void syncThrough(long ticket, Syncer syncer) throws IOException {
            long target;
            synchronized (this) {
                while (true) {
                    if (syncedThrough >= ticket) {
                        return;
                    }
                    if (!syncing) {
                        syncing = true;
                        target = completedWrites;
                        syncs++;
                        break;
                    }
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("interrupted waiting for the file's sync");
                    }
                }
            }
            boolean synced = false;
            try {
                syncer.sync();
                synced = true;
            } finally {
                synchronized (this) {
                    syncing = false;
                    if (synced) {
                        syncedThrough = Math.max(syncedThrough, target);
                    }
                    notifyAll();
                }
            }
        }

        /** @return syncs run (each covering one or more writes) */
        public synchronized long syncs() {
            return syncs;
        }
    }

    /** How a cached channel was opened. */
    private enum Access {
        /** Read-only: READ, COMMIT (fsync flushes the file whichever descriptor asks). */
        READ(StandardOpenOption.READ),
        /** Write-only, buffered: every WRITE; stable ones then sync through the entry's {@link SyncGroup}. */
        WRITE(StandardOpenOption.WRITE);

        private final StandardOpenOption option;

        Access(StandardOpenOption option) {
            this.option = option;
        }
    }

    private static final Access[] ACCESSES = Access.values();

    /**
     * The path named another file than the handle's by the time it was opened (removed and
     * replaced between the caller's check and the open): the caller answers its stale-handle
     * error (NFS3ERR_STALE, NFS4ERR_STALE).
     */
    public static final class ReplacedException extends IOException {
        private static final long serialVersionUID = 1L;

        ReplacedException(Path path) {
            super(path + ": another file took the path while it was opened");
        }
    }

    private record Key(long dev, long ino, Access access) {
    }

    /** One cached channel and its lease count; fields guarded by the OpenFiles lock. */
    private static final class Entry {
        final FileChannel channel;
        final SyncGroup syncGroup = new SyncGroup();
        /** What a stable write's group commit runs: made once per channel, not per WRITE. */
        final SyncGroup.Syncer force;
        int leases;
        boolean retired;
        long lastUsedNanos;

        Entry(FileChannel channel) {
            this.channel = channel;
            this.force = () -> channel.force(true);
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

        /**
         * Makes the writes through this channel durable up to one whose data has just reached
         * the page cache (a stable WRITE): group commit with the file's other stable writers.
         */
        public void syncWrite() throws IOException {
            SyncGroup group = entry.syncGroup;
            group.syncThrough(group.writeDone(), entry.force);
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
    /** {@link #closeAll} ran: nothing is cached from then on. */
    private boolean closed;

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
     * @param dev its st_dev, read by that check
     * @param ino its st_ino, read by that check
     * @throws ReplacedException if the path named another file by the time it was opened
     * @throws IOException if the file cannot be opened
     */
    public Lease open(Path path, long dev, long ino) throws IOException {
        return lease(path, dev, ino, Access.READ);
    }

    /**
     * Lends a write-only channel on a regular file whose handle was just checked, and whose
     * caller was just found allowed to write it (WRITE); a stable WRITE then calls
     * {@link Lease#syncWrite()}.
     *
     * @param path the file's path, checked this call
     * @param dev its st_dev, read by that check
     * @param ino its st_ino, read by that check
     * @throws ReplacedException if the path named another file by the time it was opened
     * @throws IOException if the file cannot be opened for writing
     */
    public Lease openForWrite(Path path, long dev, long ino) throws IOException {
        return lease(path, dev, ino, Access.WRITE);
    }

    private Lease lease(Path path, long dev, long ino, Access access) throws IOException {
        Key key = new Key(dev, ino, access);
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
            UnixStat now = UnixStat.of(path);
            if (now.dev() != key.dev() || now.ino() != key.ino()) {
                throw new ReplacedException(path);
            }
        } catch (IOException | RuntimeException e) {
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
            if (closed) {
                // a call that began before the server stopped: its channel is closed when it is done
                entry.retired = true;
                return lend(entry, now);
            }
            entries.put(key, entry);
            evictBeyondCapacity();
            return lend(entry, now);
        }
    }

    /** Closes the channels of the file (st_dev, st_ino) removed or replaced through the server, if cached. */
    public void forget(long dev, long ino) {
        synchronized (this) {
            for (Access access : ACCESSES) {
                Entry entry = entries.remove(new Key(dev, ino, access));
                if (entry != null) {
                    retire(entry);
                }
            }
        }
    }

    /**
     * closeAll() - the server stops, or its exports were replaced: every cached channel is closed
     * now, or, one a call still holds, when that call releases it. A call that still opens a file
     * here (one that began before) gets a channel closed when it releases it: nothing is cached
     * any more.
     */
    public synchronized void closeAll() {
        closed = true;
        for (Entry entry : entries.values()) {
            retire(entry);
        }
        entries.clear();
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
        return FileChannel.open(path, access.option, LinkOption.NOFOLLOW_LINKS);
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
