package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

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
 * <p>Ownership: the device's resources own it and {@link #close()} it after their last
 * connection; every extent was freed by then (each SEND completes, flushed if need be).
 * Threading: shared by the connections of one completion loop, whose workers post their own
 * replies: every method takes the staging's lock (held for a few map operations).
 */
public final class StagingSlab {
    /** Extents are aligned to a cache line, so two replies never share one. */
    static final int ALIGNMENT = 64;

    private final ProtectionDomain protectionDomain;
    private final int capacity;
    /** Free extents: start → length, disjoint and never adjacent (adjacent ones are merged). */
    private final TreeMap<Integer, Integer> free = new TreeMap<>();
    private MemoryRegion region;
    private int allocated;
    private final PoolShare share;

    public StagingSlab(ProtectionDomain protectionDomain, int capacity) {
        this.protectionDomain = protectionDomain;
        this.capacity = capacity;
        this.share = new PoolShare(capacity);
        free.put(0, capacity);
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
     * @param length bytes wanted, 1..{@link #capacity()}
     * @return the extent's offset in the slab, or -1 when no free extent is large enough now
     */
    synchronized int allocate(int length) {
        int size = aligned(length);
        for (Map.Entry<Integer, Integer> e : free.entrySet()) {
            int start = e.getKey();
            int extent = e.getValue();
            if (extent >= size) {
                free.remove(start);
                if (extent > size) {
                    free.put(start + size, extent - size);
                }
                allocated += size;
                return start;
            }
        }
        return -1;
    }

    /**
     * free() - give back an extent {@link #allocate} returned, merging it with its free
     * neighbours.
     *
     * @param offset the extent's offset
     * @param length the length it was allocated with
     */
    synchronized void free(int offset, int length) {
        int start = offset;
        int size = aligned(length);
        allocated -= size;
        Map.Entry<Integer, Integer> before = free.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            size += before.getValue();
            free.remove(start);
        }
        Integer after = free.get(start + size);
        if (after != null) {
            free.remove(start + size);
            size += after;
        }
        free.put(start, size);
    }

    /**
     * close() - deregister the slab.
     *
     * @return false when the provider refused (the caller counts it)
     */
    public synchronized boolean close() {
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
}
