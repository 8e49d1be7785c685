package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.Access;

/**
 * Scratch list of resolved memory ranges (an SGE list after key, domain, access and bounds
 * checks), reused by the executor for every request: resolution and copies allocate nothing.
 *
 * <p>Threading: owned by the fabric, used under its lock only.
 */
final class Segments {
    private final RegisteredMemory[] memory;
    private final int[] index;
    private final int[] length;
    private int count;
    private long total;

    Segments(int capacity) {
        memory = new RegisteredMemory[capacity];
        index = new int[capacity];
        length = new int[capacity];
    }

    /**
     * Resolves an SGE list against the key table.
     *
     * @return true when every SGE names valid memory of the domain with the access, inside its window
     */
    boolean resolve(KeyTable keys, LoopbackProtectionDomain domain, long[] addresses, int[] lengths, int[] lkeys, int sgeCount, int requiredAccess) {
        clear();
        for (int i = 0; i < sgeCount; i++) {
            if (!add(keys.lookup(lkeys[i]), domain, addresses[i], lengths[i], requiredAccess)) {
                clear();
                return false;
            }
        }
        return true;
    }

    /**
     * Resolves one remote range named by rkey.
     *
     * @return true when the key names valid memory of the domain with the access, covering the range
     */
    boolean resolveRemote(KeyTable keys, LoopbackProtectionDomain domain, long address, int rangeLength, int rkey, int requiredAccess) {
        clear();
        if (!add(keys.lookup(rkey), domain, address, rangeLength, requiredAccess)) {
            clear();
            return false;
        }
        return true;
    }

    private boolean add(RegisteredMemory found, LoopbackProtectionDomain domain, long address, int rangeLength, int requiredAccess) {
        if (found == null || found.protectionDomain != domain || (found.access & requiredAccess) != requiredAccess
                || !found.contains(address, rangeLength)) {
            return false;
        }
        memory[count] = found;
        index[count] = found.bufferIndexOf(address);
        length[count] = rangeLength;
        count++;
        total += rangeLength;
        return true;
    }

    long total() {
        return total;
    }

    void clear() {
        for (int i = 0; i < count; i++) {
            memory[i] = null;
        }
        count = 0;
        total = 0;
    }

    /**
     * Copies {@code bytes} bytes from the start of {@code source} to the start of {@code sink},
     * walking both lists. Both MUST hold at least that many bytes.
     */
    static void copy(Segments source, Segments sink, int bytes) {
        int s = 0;
        int sOff = 0;
        int d = 0;
        int dOff = 0;
        int left = bytes;
        while (left > 0) {
            int n = Math.min(left, Math.min(source.length[s] - sOff, sink.length[d] - dOff));
            if (n > 0) {
                sink.memory[d].buffer.put(sink.index[d] + dOff, source.memory[s].buffer, source.index[s] + sOff, n);
            }
            sOff += n;
            dOff += n;
            left -= n;
            if (sOff == source.length[s] && left > 0) {
                s++;
                sOff = 0;
            }
            if (dOff == sink.length[d] && left > 0) {
                d++;
                dOff = 0;
            }
        }
    }

    /** Copies {@code bytes} bytes of an inline payload to the start of {@code sink}. */
    static void copy(byte[] source, Segments sink, int bytes) {
        int at = 0;
        for (int d = 0; at < bytes; d++) {
            int n = Math.min(bytes - at, sink.length[d]);
            sink.memory[d].buffer.put(sink.index[d], source, at, n);
            at += n;
        }
    }

    /** The access a READ sink needs on this transport (iWARP places READ data like a remote write). */
    static int readSinkAccess(boolean iwarp) {
        return iwarp ? Access.LOCAL_WRITE | Access.REMOTE_WRITE : Access.LOCAL_WRITE;
    }
}
