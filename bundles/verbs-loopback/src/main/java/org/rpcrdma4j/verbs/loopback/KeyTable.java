package org.rpcrdma4j.verbs.loopback;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The fabric's key table: a key is a 24-bit table index and an 8-bit tag, so a lookup is one
 * array read and a comparison (no boxing, no allocation on the data path). A released index is
 * reused last and with a fresh tag, so stale keys do not match new memory.
 *
 * <p>Threading: under the fabric lock only.
 */
final class KeyTable {
    private static final int MAX_INDEX = (1 << 24) - 1;

    private RegisteredMemory[] entries = new RegisteredMemory[64];
    private int[] nextTag = new int[64];
    private final ArrayDeque<Integer> freeIndexes = new ArrayDeque<>();
    private int highestIndex;
    private int inUse;

    int allocateIndex(RegisteredMemory memory) {
        Integer reused = freeIndexes.pollFirst();
        int index = reused != null ? reused : ++highestIndex;
        if (index > MAX_INDEX) {
            throw new IllegalStateException("loopback key table is full");
        }
        if (index >= entries.length) {
            entries = Arrays.copyOf(entries, Math.max(index + 1, entries.length * 2));
            nextTag = Arrays.copyOf(nextTag, entries.length);
        }
        entries[index] = memory;
        inUse++;
        return index;
    }

    /** @return a fresh key for the index: the index and its next 8-bit tag */
    int nextKey(int index) {
        int tag = nextTag[index] & 0xff;
        nextTag[index] = tag + 1;
        return (index << 8) | tag;
    }

    void release(int index) {
        entries[index] = null;
        inUse--;
        freeIndexes.addLast(index);
    }

    /** @return the number of memory and fast-registration regions not yet released */
    int inUse() {
        return inUse;
    }

    /**
     * @param key a local or remote key
     * @return the memory it grants now, or null when the key is unknown, stale or invalidated
     */
    RegisteredMemory lookup(int key) {
        int index = key >>> 8;
        if (index >= entries.length) {
            return null;
        }
        RegisteredMemory memory = entries[index];
        return memory != null && memory.valid && memory.key == key ? memory : null;
    }
}
