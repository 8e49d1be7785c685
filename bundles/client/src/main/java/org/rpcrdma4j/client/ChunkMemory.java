package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The memory behind one chunk of a call, as the server sees it: an address and a handle over a
 * direct buffer, either a plain registration (ibv_reg_mr) or a fast-registration region mapped by
 * a REG_MR work request posted just before the call's SEND (so a server may invalidate it with
 * Send With Invalidate).
 *
 * <p>Ownership: owned by the {@link PreparedCall} that created it, which MUST {@link #release}
 * it exactly once. Not thread-safe.
 */
abstract class ChunkMemory {
    private final ByteBuffer buffer;
    private final ClientCounters counters;

    ChunkMemory(ByteBuffer buffer, ClientCounters counters) {
        this.buffer = buffer;
        this.counters = counters;
        counters.registrations.incrementAndGet();
    }

    /** @return the chunk's memory, index 0 its first byte */
    final ByteBuffer buffer() {
        return buffer;
    }

    /** @return the address of buffer index 0 as the server names it */
    abstract long address();

    /** @return the handle (rkey) the server uses */
    abstract int handle();

    /**
     * Fills the work request that must precede the call's SEND, if this memory needs one.
     *
     * @param request a reusable send work request
     * @param id the id to give it
     * @return true when filled (post it before the SEND), false when none is needed
     */
    abstract boolean fillRegistration(SendWorkRequest request, long id);

    /**
     * Releases the registration; its handle stops working.
     *
     * @return null, or the failure (the memory counts as released either way)
     */
    final VerbsException release() {
        counters.deregistrations.incrementAndGet();
        try {
            releaseRegistration();
            return null;
        } catch (VerbsException e) {
            return e;
        }
    }

    abstract void releaseRegistration() throws VerbsException;

    /** A plain registration, valid as soon as it exists. */
    static final class Registered extends ChunkMemory {
        private final MemoryRegion region;

        Registered(MemoryRegion region, ClientCounters counters) {
            super(region.buffer(), counters);
            this.region = region;
        }

        @Override
        long address() {
            return region.address();
        }

        @Override
        int handle() {
            return region.rkey();
        }

        @Override
        boolean fillRegistration(SendWorkRequest request, long id) {
            return false;
        }

        @Override
        void releaseRegistration() throws VerbsException {
            region.deregister();
        }
    }

    /** A fast-registration region with a fresh key, mapped by a REG_MR posted before the SEND. */
    static final class FastRegistered extends ChunkMemory {
        private final FastRegistrationRegion region;
        private final int key;
        private final int access;

        FastRegistered(FastRegistrationRegion region, ByteBuffer buffer, int access, ClientCounters counters) {
            super(buffer, counters);
            this.region = region;
            this.key = region.bumpKey();
            this.access = access;
        }

        @Override
        long address() {
            return region.address();
        }

        @Override
        int handle() {
            return key;
        }

        @Override
        boolean fillRegistration(SendWorkRequest request, long id) {
            request.reset(SendOpcode.REG_MR, id, 0).registration(region, buffer(), 0, buffer().capacity(), access);
            return true;
        }

        /** Deallocating the region ends its key, whether or not the server invalidated it first. */
        @Override
        void releaseRegistration() throws VerbsException {
            region.close();
        }
    }
}
