package org.rpcrdma4j.verbs.loopback;

import java.nio.ByteBuffer;

/**
 * A key-table entry: memory a key currently grants, with its domain, window and access. Shared
 * base of plain memory regions and fast-registration regions.
 *
 * <p>Threading: every field is read and written under the fabric lock only.
 */
abstract class RegisteredMemory {
    final LoopbackFabric fabric;
    final LoopbackProtectionDomain protectionDomain;
    final int keyIndex;
    final long address;
    int key;
    boolean valid;
    ByteBuffer buffer;
    int bufferOffset;
    int length;
    int access;

    RegisteredMemory(LoopbackFabric fabric, LoopbackProtectionDomain protectionDomain, long address) {
        this.fabric = fabric;
        this.protectionDomain = protectionDomain;
        this.address = address;
        this.keyIndex = fabric.keys.allocateIndex(this);
        this.key = fabric.keys.nextKey(keyIndex);
    }

    /** @return true when this memory may be invalidated by LOCAL_INV and remote invalidation */
    abstract boolean isFastRegistration();

    /**
     * @param from the first virtual address
     * @param count the number of bytes
     * @return whether {@code [from, from + count)} lies inside the registered window
     */
    final boolean contains(long from, int count) {
        long offset = from - address;
        return count >= 0 && offset >= 0 && offset <= (long) length - count;
    }

    /**
     * @param virtualAddress an address inside the window
     * @return the buffer index holding it
     */
    final int bufferIndexOf(long virtualAddress) {
        return bufferOffset + (int) (virtualAddress - address);
    }
}
