package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Registers and deregisters memory in the client's protection domain and counts both, so tests
 * can assert that nothing leaked whatever the provider exposes. Chunks are registered plainly, or
 * with fast registration when the client lets the server invalidate them remotely (RFC 8797):
 * only a fast-registration key can be invalidated by Send With Invalidate.
 *
 * <p>Thread-safe (the protection domain is, the counters are atomic). Ownership: whoever
 * registers owns the result and MUST release it.
 */
final class Registrar {
    private final ProtectionDomain protectionDomain;
    private final ClientCounters counters;
    private final boolean fastRegistration;

    Registrar(ProtectionDomain protectionDomain, ClientCounters counters, boolean fastRegistration) {
        this.protectionDomain = protectionDomain;
        this.counters = counters;
        this.fastRegistration = fastRegistration;
    }

    /** @return whether chunks use fast registration (a REG_MR before the SEND) */
    boolean fastRegistration() {
        return fastRegistration;
    }

    /**
     * Registers a direct buffer from index 0 to its capacity (slabs).
     *
     * @param buffer a direct buffer; index 0 becomes the region's address
     * @param access the access flags
     * @return the region, owned by the caller
     * @throws VerbsException when the device refuses
     */
    MemoryRegion register(ByteBuffer buffer, int access) throws VerbsException {
        MemoryRegion region = protectionDomain.registerMemory(buffer, access);
        counters.registrations.incrementAndGet();
        return region;
    }

    /**
     * Registers a chunk's memory from index 0 to its capacity.
     *
     * @param buffer a direct buffer
     * @param access the access flags the server needs
     * @return the chunk memory, owned by the caller
     * @throws VerbsException when the device refuses
     */
    ChunkMemory registerChunk(ByteBuffer buffer, int access) throws VerbsException {
        if (!fastRegistration) {
            return new ChunkMemory.Registered(protectionDomain.registerMemory(buffer, access), counters);
        }
        FastRegistrationRegion region = protectionDomain.allocateFastRegistrationRegion(buffer.capacity());
        return new ChunkMemory.FastRegistered(region, buffer, access, counters);
    }

    /**
     * Deregisters a region; a null region is ignored.
     *
     * @param region the region, or null
     * @return null when it went well, else the exception the device raised (the region is
     *         counted as released either way: its owner will not try again)
     */
    VerbsException deregister(MemoryRegion region) {
        if (region == null) {
            return null;
        }
        counters.deregistrations.incrementAndGet();
        try {
            region.deregister();
            return null;
        } catch (VerbsException e) {
            return e;
        }
    }
}
