package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;

/**
 * A registered memory region (ibv_mr) over a direct buffer.
 *
 * <p>Addresses: work requests name memory by <em>virtual address</em>, as verbs do:
 * {@link #address()} is the address of buffer index 0, so byte {@code i} of the buffer is at
 * {@code address() + i} (the value to put in an SGE, or to advertise as an RPC-over-RDMA segment
 * offset together with {@link #rkey()}).
 *
 * <p>Ownership: owned by whoever registered it, who MUST deregister it on every path, and only
 * after every work request naming it has completed. The provider holds no reference to the buffer
 * after deregistration. Getters are safe from any thread.
 */
public interface MemoryRegion extends AutoCloseable {
    /** @return the protection domain the region was registered in */
    ProtectionDomain protectionDomain();

    /** @return the registered buffer (index 0 is {@link #address()}) */
    ByteBuffer buffer();

    /** @return the virtual address of buffer index 0 */
    long address();

    /** @return the registered length in bytes (the buffer's capacity) */
    int length();

    /** @return the {@link Access} flags granted */
    int access();

    /** @return the local key, for SGEs of this side's work requests */
    int lkey();

    /** @return the remote key, for the peer's RDMA READ and WRITE (needs REMOTE_* access) */
    int rkey();

    /**
     * The address of a buffer index, for SGEs and advertised segments.
     *
     * @param index an index into the buffer
     * @return {@code address() + index}
     */
    default long addressOf(int index) {
        return address() + index;
    }

    /**
     * Deregisters the region (ibv_dereg_mr): its keys stop working at once. Deregistering twice
     * does nothing.
     *
     * @throws VerbsException when the device refuses
     */
    void deregister() throws VerbsException;

    /** Same as {@link #deregister()}, for try-with-resources. */
    @Override
    default void close() throws VerbsException {
        deregister();
    }
}
