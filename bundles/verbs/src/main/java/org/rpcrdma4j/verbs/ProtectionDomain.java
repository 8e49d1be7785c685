package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;

/**
 * A protection domain (ibv_pd): memory regions and queue pairs of one domain can use each
 * other's keys; keys of another domain fail with a protection or remote access error.
 *
 * <p>Ownership: owned by whoever allocated it. It MUST outlive every region and queue pair created
 * in it; {@link #close()} fails with {@link Errno#EBUSY} otherwise. Methods are safe to call from
 * any thread.
 */
public interface ProtectionDomain extends AutoCloseable {
    /** @return the device this domain lives on */
    VerbsDevice device();

    /**
     * Registers a direct buffer (ibv_reg_mr): the region covers the buffer from index 0 to its
     * capacity, whatever its position and limit.
     *
     * <p>Assumptions: the buffer is direct and stays reachable while registered. Ownership: the
     * caller owns the returned region and MUST {@link MemoryRegion#deregister() deregister} it;
     * the buffer stays the caller's.
     *
     * @param buffer a direct buffer of at least one byte
     * @param access a combination of {@link Access} flags
     * @return the registered region with its lkey and rkey
     * @throws VerbsException EINVAL for a heap buffer, an empty buffer or invalid access flags
     *         (see {@link Access#isValid(int)}); EBADF when the domain is closed
     */
    MemoryRegion registerMemory(ByteBuffer buffer, int access) throws VerbsException;

    /**
     * Allocates a region for fast registration (ibv_alloc_mr / IB_MR_TYPE_MEM_REG): it maps no
     * memory and grants nothing until a {@link SendOpcode#REG_MR} work request registers a buffer
     * into it with a key bumped by {@link FastRegistrationRegion#bumpKey()}.
     *
     * <p>Ownership: the caller owns it and MUST close it.
     *
     * @param maxLength the largest number of bytes one registration will map
     * @return a new, invalid (free) region
     * @throws VerbsException EOPNOTSUPP without {@link DeviceCapabilities#fastRegistration()};
     *         EINVAL when maxLength exceeds {@link DeviceCapabilities#maxFastRegistrationLength()}
     */
    FastRegistrationRegion allocateFastRegistrationRegion(int maxLength) throws VerbsException;

    /**
     * Deallocates the domain (ibv_dealloc_pd). Closing a closed domain does nothing.
     *
     * @throws VerbsException EBUSY while a region or queue pair of this domain exists
     */
    @Override
    void close() throws VerbsException;
}
