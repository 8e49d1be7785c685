package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.internal.common.PoolShare;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * StagingSlab - the registered memory a loop's replies on one device are staged in before RDMA
 * WRITE pushes them into the client's write chunk or reply chunk. One slab, registered once (local access
 * only: it is only ever the source of a WRITE), carved into extents first-fit and coalesced when
 * freed; an extent lives from the reply's post until its SEND completes (or flushes).
 *
 * <p>A reply that finds no room waits on its connection (never blocks a thread); one larger than
 * the whole slab can never be sent and is refused up front ({@link #capacity()}). Connections
 * allocate through their own {@link ReplyStaging}, which counts what they hold against their
 * {@link PoolShare share} of the slab, kept under the slab's lock.
 *
 * <p>Layout: the slab is cut into units of {@link #ALIGNMENT} bytes; a configured capacity that is
 * not a multiple of it leaves a tail of under one unit that is never handed out (nor counted in
 * {@link #capacity()}). The extents, free and allocated, tile the units. Two {@link UnitBitmap}s
 * hold the whole structure: {@code starts} marks the first unit of every extent (plus a sentinel
 * past the last unit), so an extent ends where the next start is; {@code freeStarts} marks the
 * first unit of the free ones. Both answer "next member at or after" and "previous member at or
 * before" in one word operation per summary level (at most 4 for a 1 GiB slab), so:
 * <ul>
 * <li>{@link #free(int, int)} finds both neighbours and merges with them in O(1) word operations,
 *     and checks exactly that the extent was allocated with that length (a double free, a wrong
 *     length or a foreign offset is an {@link IllegalStateException}, the structure untouched);</li>
 * <li>{@link #allocate(int)} is first-fit in address order, visiting only the free extents, as the
 *     map of free extents this replaced did, without its boxing and entry objects.</li>
 * </ul>
 * Why bitmaps rather than boundary tags with an int-array free list: tags and links cost 12 bytes
 * per 64-byte unit (192 MiB of heap for the largest slab, 4.5 MiB for the default per loop and
 * device), the bitmaps about 2 bits per unit (0.4 % of the slab); and they keep the free extents in
 * address order for free, where a linked list must either search for its place or give up address
 * order. Nothing is allocated after construction.
 *
 * <p>Ownership: the device's resources own it and {@link #close()} it after their last
 * connection; every extent was freed by then (each SEND completes, flushed if need be).
 * Threading: shared by the connections of one completion loop, whose workers post their own
 * replies: every method takes the staging's lock (held for a few dozen word operations).
 */
public final class StagingSlab {
    /** Extents are aligned to a cache line, so two replies never share one. */
    static final int ALIGNMENT = 64;
    private static final int UNIT_SHIFT = 6;

    private final ProtectionDomain protectionDomain;
    /** Usable bytes: the configured capacity rounded down to whole units. */
    private final int capacity;
    private final int units;
    /** The first unit of every extent, free or allocated, and the sentinel {@code units}. */
    private final UnitBitmap starts;
    /** The first unit of every free extent; never two adjacent free extents (they are merged). */
    private final UnitBitmap freeStarts;
    private MemoryRegion region;
    private int allocated;
    private final PoolShare share;

    /**
     * @param capacity bytes of the slab; only whole units of {@link #ALIGNMENT} bytes are used
     * @throws IllegalArgumentException when {@code capacity} is negative
     */
    public StagingSlab(ProtectionDomain protectionDomain, int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("replyStagingBytes must not be negative: " + capacity);
        }
        this.protectionDomain = protectionDomain;
        this.units = capacity >>> UNIT_SHIFT;
        this.capacity = units << UNIT_SHIFT;
        this.share = new PoolShare(this.capacity);
        this.starts = new UnitBitmap(units + 1);
        this.freeStarts = new UnitBitmap(units);
        starts.set(units);
        if (units > 0) {
            starts.set(0);
            freeStarts.set(0);
        }
    }

    /** @return a new connection's account, whose credits justify {@code ceiling} bytes */
    synchronized PoolShare.Account openAccount(long ceiling) {
        return share.account(ceiling);
    }

    /**
     * allocate() - take an extent for a connection, if its share and the slab allow.
     *
     * @param account the connection's account
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset, or -1 with the reason in the account's {@link PoolShare.Account#verdict()}
     */
    synchronized int allocate(PoolShare.Account account, int length) {
        int size = aligned(length);
        if (account.admit(size, capacity - allocated) != PoolShare.Verdict.ADMIT) {
            return -1;
        }
        int at = allocate(length);
        if (at < 0) {
            account.poolEmpty();
            return -1;
        }
        account.took(size);
        return at;
    }

    /**
     * allocateNow() - take an extent for a connection's reply before it is encoded (a worker
     * about to encode a large reply straight into registered memory), only if it can be had at
     * once: within the connection's share and from a free extent. A refusal changes nothing (the
     * connection is not marked waiting: the reply is then encoded elsewhere, and whatever it
     * waits for later, it waits for at its post). Only while the slab is registered: a worker
     * never registers it (nor again after {@link #close()}, when its device may be gone); the
     * first post that needs staging does.
     *
     * @param account the connection's account
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset, or -1
     */
    synchronized int allocateNow(PoolShare.Account account, int length) {
        int size = aligned(length);
        if (region == null || capacity - allocated < size || !account.fitsShare(size)) {
            return -1;
        }
        int at = allocate(length);
        if (at >= 0) {
            account.added(size);
        }
        return at;
    }

    /** free() - give back a connection's extent. */
    synchronized void free(PoolShare.Account account, int offset, int length) {
        free(offset, length);
        account.gave(aligned(length));
    }

    /** stopWaiting() - the connection's waiting reply went away (its connection closes). */
    synchronized void stopWaiting(PoolShare.Account account) {
        account.stopWaiting();
    }

    /** @return connections holding or waiting for staging (for tests) */
    synchronized int competitors() {
        return share.competitors();
    }

    /** @return the largest extent that could ever be allocated */
    public int capacity() {
        return capacity;
    }

    /** @return true once the slab is registered */
    public synchronized boolean isRegistered() {
        return region != null;
    }

    /** @return bytes held by extents not yet freed (aligned sizes) */
    public synchronized int allocated() {
        return allocated;
    }

    /** @return the registered slab, or null while it is not registered (never registers it) */
    synchronized MemoryRegion registeredRegion() {
        return region;
    }

    /**
     * region() - the registered slab, registered on first use so devices that never send a large
     * reply hold no such memory.
     *
     * @throws VerbsException when the registration fails (retried on the next call)
     */
    synchronized MemoryRegion region() throws VerbsException {
        if (region == null) {
            region = protectionDomain.registerMemory(ByteBuffer.allocateDirect(capacity), 0);
        }
        return region;
    }

    /**
     * allocate() - take an extent of at least {@code length} bytes.
     *
     * <p>First-fit in address order: replies are allocated in arrival order and mostly freed in
     * the same order, so the freed space gathers in one hole behind the oldest live reply, which
     * the next replies fill from its low end; the free extents stay few and large (a LIFO or
     * next-fit order would spread 4 KiB replies over the holes a 1 MiB reply needs whole).
     *
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset in the slab, or -1 when no free extent is large enough now
     */
    synchronized int allocate(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("staging length must be positive: " + length);
        }
        int size = unitsOf(length);
        int at = freeStarts.next(0);
        while (at >= 0) {
            int end = starts.next(at + 1);
            if (end - at >= size) {
                takeExtent(at, end, size);
                return at << UNIT_SHIFT;
            }
            at = freeStarts.next(end);
        }
        return -1;
    }

    /** takeExtent() - allocate the first {@code size} units of the free extent [at, end). */
    private void takeExtent(int at, int end, int size) {
        freeStarts.clear(at);
        if (end - at > size) {
            starts.set(at + size);
            freeStarts.set(at + size);
        }
        allocated += size << UNIT_SHIFT;
    }

    /**
     * free() - give back an extent {@link #allocate} returned, merging it with its free
     * neighbours.
     *
     * @param offset the extent's offset
     * @param length the length it was allocated with
     * @throws IllegalStateException when no extent of that length is allocated at {@code offset}
     *         (a double free, for one); the slab is left as it was
     */
    synchronized void free(int offset, int length) {
        int at = offset >>> UNIT_SHIFT;
        int size = checkAllocated(offset, length);
        int end = at + size;
        if (at > 0 && freeStarts.get(starts.previous(at - 1))) {
            starts.clear(at);
        } else {
            freeStarts.set(at);
        }
        if (end < units && freeStarts.get(end)) {
            starts.clear(end);
            freeStarts.clear(end);
        }
        allocated -= size << UNIT_SHIFT;
    }

    /**
     * checkAllocated() - make sure an allocated extent of {@code length} bytes starts at {@code offset}.
     *
     * @return its size in units
     * @throws IllegalStateException naming the offset, when it does not
     */
    private int checkAllocated(int offset, int length) {
        if (offset < 0 || (offset & (ALIGNMENT - 1)) != 0 || length < 1 || offset >= capacity
                || unitsOf(length) > units - (offset >>> UNIT_SHIFT)) {
            throw notAllocated(offset, length, "is not an extent of this slab");
        }
        int at = offset >>> UNIT_SHIFT;
        int size = unitsOf(length);
        if (freeStarts.get(at) || !starts.get(at) && freeStarts.get(starts.previous(at))) {
            throw notAllocated(offset, length, "is free already (freed twice?)");
        }
        if (!starts.get(at)) {
            throw notAllocated(offset, length, "lies inside another allocated extent");
        }
        if (starts.next(at + 1) != at + size) {
            throw notAllocated(offset, length, "was allocated with another length");
        }
        return size;
    }

    private static IllegalStateException notAllocated(int offset, int length, String why) {
        return new IllegalStateException("staging extent at offset " + offset + " of " + length + " bytes " + why);
    }

    /**
     * close() - deregister the slab, once no extent is allocated: checked under the lock
     * {@link #allocateNow} takes, so a worker that took an extent to encode into can count on
     * the registration until it gives the extent back.
     *
     * @return false while an extent is allocated (try again later), or when the provider refused
     */
    public synchronized boolean close() {
        if (allocated > 0) {
            return false;
        }
        if (region == null) {
            return true;
        }
        MemoryRegion r = region;
        region = null;
        try {
            r.deregister();
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    static int aligned(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** @return whole units holding {@code length} bytes, 1 or more (no overflow near Integer.MAX_VALUE) */
    private static int unitsOf(int length) {
        return ((length - 1) >>> UNIT_SHIFT) + 1;
    }

    /**
     * UnitBitmap - a set of unit numbers 0..bits-1 as a bitmap with summary levels above it (bit
     * i of level k+1 is set while word i of level k is not zero), so the next or previous member
     * is found with one word operation per level instead of a scan of the words.
     *
     * <p>Threading: not synchronized; the slab calls it under its lock.
     */
    static final class UnitBitmap {
        /** levels[0] holds a bit per unit; the last level is a single word. */
        private final long[][] levels;

        UnitBitmap(int bits) {
            int depth = 1;
            for (int words = wordsFor(bits); words > 1; words = wordsFor(words)) {
                depth++;
            }
            levels = new long[depth][];
            int words = wordsFor(bits);
            for (int level = 0; level < depth; level++) {
                levels[level] = new long[words];
                words = wordsFor(words);
            }
        }

        private static int wordsFor(int bits) {
            return Math.max(1, (bits + 63) >>> 6);
        }

        boolean get(int unit) {
            return (levels[0][unit >>> 6] & 1L << unit) != 0;
        }

        void set(int unit) {
            int i = unit;
            for (long[] words : levels) {
                int w = i >>> 6;
                long before = words[w];
                words[w] = before | 1L << i;
                if (before != 0) {
                    return;
                }
                i = w;
            }
        }

        void clear(int unit) {
            int i = unit;
            for (long[] words : levels) {
                int w = i >>> 6;
                long after = words[w] & ~(1L << i);
                words[w] = after;
                if (after != 0) {
                    return;
                }
                i = w;
            }
        }

        /** @return the smallest member at or after {@code from}, or -1 when there is none */
        int next(int from) {
            int level = 0;
            int i = from;
            while (true) {
                long[] words = levels[level];
                int w = i >>> 6;
                if (w >= words.length) {
                    return -1;
                }
                long rest = words[w] & -1L << i;
                if (rest != 0) {
                    i = w << 6 | Long.numberOfTrailingZeros(rest);
                    break;
                }
                if (++level == levels.length) {
                    return -1;
                }
                i = w + 1;
            }
            while (level > 0) {
                long word = levels[--level][i];
                i = i << 6 | Long.numberOfTrailingZeros(word);
            }
            return i;
        }

        /** @return the largest member at or before {@code from}, or -1 when there is none */
        int previous(int from) {
            if (from < 0) {
                return -1;
            }
            int level = 0;
            int i = Math.min(from, (levels[0].length << 6) - 1);
            while (true) {
                int w = i >>> 6;
                long rest = levels[level][w] & -1L >>> ~i;
                if (rest != 0) {
                    i = w << 6 | 63 - Long.numberOfLeadingZeros(rest);
                    break;
                }
                if (++level == levels.length || w == 0) {
                    return -1;
                }
                i = w - 1;
            }
            while (level > 0) {
                long word = levels[--level][i];
                i = i << 6 | 63 - Long.numberOfLeadingZeros(word);
            }
            return i;
        }
    }
}
