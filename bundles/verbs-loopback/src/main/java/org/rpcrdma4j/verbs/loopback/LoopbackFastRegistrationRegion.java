package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;

/**
 * A loopback fast-registration region: free until a REG_MR work request maps a buffer window
 * into it under its current key; invalidation frees it again.
 */
final class LoopbackFastRegistrationRegion extends RegisteredMemory implements FastRegistrationRegion {
    private final int maxLength;
    private boolean closed;

    /** Under the fabric lock. */
    LoopbackFastRegistrationRegion(LoopbackFabric fabric, LoopbackProtectionDomain protectionDomain, int maxLength) {
        super(fabric, protectionDomain, fabric.allocateAddressRange(maxLength));
        this.maxLength = maxLength;
    }

    @Override
    boolean isFastRegistration() {
        return true;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    @Override
    public int maxLength() {
        return maxLength;
    }

    @Override
    public int key() {
        fabric.lock.lock();
        try {
            return key;
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int bumpKey() {
        fabric.lock.lock();
        try {
            if (valid) {
                throw new IllegalStateException("the key of a registered region must not change; invalidate it first");
            }
            key = fabric.keys.nextKey(keyIndex);
            return key;
        } finally {
            fabric.lock.unlock();
        }
    }

    /** Under the fabric lock, from REG_MR: map the window under the current key. */
    boolean isRegistrable() {
        return !closed && !valid;
    }

    /** Under the fabric lock, from LOCAL_INV, SEND_WITH_INV or READ_WITH_INV. */
    void invalidate() {
        valid = false;
        buffer = null;
    }

    @Override
    public void close() {
        fabric.lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            invalidate();
            fabric.keys.release(keyIndex);
            protectionDomain.release();
        } finally {
            fabric.lock.unlock();
        }
    }
}
