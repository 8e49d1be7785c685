package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Registers and deregisters memory in the client's protection domain and counts both, so tests
 * can assert that nothing leaked whatever the provider exposes.
 *
 * <p>Thread-safe (the protection domain is, the counters are atomic). Ownership: whoever
 * {@link #register registers} owns the region and MUST hand it back to {@link #deregister}.
 */
final class Registrar {
    private final ProtectionDomain protectionDomain;
    private final ClientCounters counters;

    Registrar(ProtectionDomain protectionDomain, ClientCounters counters) {
        this.protectionDomain = protectionDomain;
        this.counters = counters;
    }

    /**
     * Registers a direct buffer from index 0 to its capacity.
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
