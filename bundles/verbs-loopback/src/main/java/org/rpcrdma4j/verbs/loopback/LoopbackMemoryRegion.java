package org.rpcrdma4j.verbs.loopback;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;

/** A loopback memory region: a key-table entry over the whole of a direct buffer; lkey == rkey. */
final class LoopbackMemoryRegion extends RegisteredMemory implements MemoryRegion {
    private final ByteBuffer registered;
    private final int registeredAccess;
    private final int registeredKey;

    /** Under the fabric lock. */
    LoopbackMemoryRegion(LoopbackFabric fabric, LoopbackProtectionDomain protectionDomain, ByteBuffer buffer, int access) {
        super(fabric, protectionDomain, fabric.allocateAddressRange(buffer.capacity()));
        this.registered = buffer;
        this.registeredAccess = access;
        this.registeredKey = key;
        this.buffer = buffer;
        this.bufferOffset = 0;
        this.length = buffer.capacity();
        this.access = access;
        this.valid = true;
    }

    @Override
    boolean isFastRegistration() {
        return false;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    @Override
    public ByteBuffer buffer() {
        return registered;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return registered.capacity();
    }

    @Override
    public int access() {
        return registeredAccess;
    }

    @Override
    public int lkey() {
        return registeredKey;
    }

    @Override
    public int rkey() {
        return registeredKey;
    }

    @Override
    public void deregister() {
        fabric.lock.lock();
        try {
            if (!valid) {
                return;
            }
            valid = false;
            buffer = null;
            fabric.keys.release(keyIndex);
            protectionDomain.release();
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "LoopbackMemoryRegion[key=0x" + Integer.toHexString(registeredKey) + " address=0x" + Long.toHexString(address)
                + " length=" + registered.capacity() + "]";
    }
}
