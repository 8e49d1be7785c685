package org.rpcrdma4j.nfs3.localfs;

import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * VerifiedHandles - a file handle check with a memory of handles that passed it: a handle whose
 * exact bytes were authenticated under this key before is accepted again without recomputing its
 * HMAC-SHA256 (4-8 % of the NFSv3 server's CPU samples in every workload of the lab's fio runs).
 * Used by the NFSv3 program's handles and by the nfs4j export's ({@code InodeHandle}).
 *
 * <p>Why it is safe: a handle's verdict is a pure function of its 40 bytes and the key. The
 * cache holds only handles that passed the MAC check, each with a private copy of its bytes,
 * and a lookup accepts a handle only when all of its bytes equal a cached copy (compared in
 * constant time, {@link MessageDigest#isEqual}): a forged handle equals no cached one, so it
 * always meets the MAC check, and a handle that fails it is never remembered. Whether the export
 * and the object still exist is not part of the verdict: the file system checks that on every
 * call.
 *
 * <p>Bounded: a direct-mapped table of {@link #SLOTS} entries (about 120 bytes each), the slot
 * chosen by the handle's MAC bytes, which are uniform for handles of this server. A client
 * sending many distinct handles only replaces entries: valid ones cost one MAC each, as without
 * the cache; forged ones cost one MAC each and take no slot.
 *
 * <p>Tied to its key: built with a check for one {@link ServerKey} and never given another, so a new key
 * (a new service, or a key file replaced and the service restarted) starts with an empty cache.
 *
 * <p>Threading: any thread. Slots are published with release and read with acquire semantics;
 * an entry is immutable. Two threads missing on the same slot both compute the MAC and the later
 * store wins, which is harmless.
 */
public final class VerifiedHandles<H, E extends Exception> {

    /** Entries in the table: a power of two. */
    public static final int SLOTS = 4096;

    /** The full check of a handle: its length, version and MAC, under one key. */
    @FunctionalInterface
    public interface Check<H, E extends Exception> {
        /** @return the decoded handle; throws {@code E} when the handle is not one of this key's */
        H verify(byte[] bytes) throws E;
    }

    /** A handle that passed the check: its bytes (a private copy) and what they decode to. */
    private record Verified<H>(byte[] bytes, H handle) {
    }

    private final int handleBytes;
    private final int macOffset;
    private final Check<H, E> check;
    private final AtomicReferenceArray<Verified<H>> slots = new AtomicReferenceArray<>(SLOTS);

    /**
     * An empty cache.
     *
     * @param handleBytes the length of every valid handle (others go to {@code check}, uncached)
     * @param macOffset where the handle's MAC starts (at least 4 bytes of it): the slot is chosen by it
     * @param check the full check, bound to one key
     */
    public VerifiedHandles(int handleBytes, int macOffset, Check<H, E> check) {
        if (macOffset < 0 || macOffset + Integer.BYTES > handleBytes) {
            throw new IllegalArgumentException("the MAC (offset " + macOffset + ") must lie in the handle's "
                    + handleBytes + " bytes");
        }
        this.handleBytes = handleBytes;
        this.macOffset = macOffset;
        this.check = check;
    }

    /**
     * verify() - authenticates and decodes a handle received from a client.
     *
     * <p>Assumptions: the caller does not change {@code bytes} while this runs (the cache keeps
     * its own copy).
     *
     * @return the decoded handle; the same instance for every call with the same cached bytes
     * @throws E what the check throws for a handle that is not valid
     */
    public H verify(byte[] bytes) throws E {
        if (bytes.length != handleBytes) {
            return check.verify(bytes); // refuses it
        }
        int slot = slotOf(bytes);
        Verified<H> cached = slots.getAcquire(slot);
        if (cached != null && MessageDigest.isEqual(cached.bytes(), bytes)) {
            return cached.handle();
        }
        H handle = check.verify(bytes);
        slots.setRelease(slot, new Verified<>(bytes.clone(), handle));
        return handle;
    }

    /** The number of handles remembered now (walks the table: tests and diagnostics only). */
    public int size() {
        int n = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (slots.getAcquire(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** The slot of a handle: low bits of its first MAC word. */
    private int slotOf(byte[] bytes) {
        int at = macOffset;
        int word = ((bytes[at] & 0xff) << 24) | ((bytes[at + 1] & 0xff) << 16) | ((bytes[at + 2] & 0xff) << 8)
                | (bytes[at + 3] & 0xff);
        return word & (SLOTS - 1);
    }
}
