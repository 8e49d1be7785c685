package org.rpcrdma4j.verbs;

/**
 * A region for fast registration (FRMR / FRWR): registered and invalidated by work requests on
 * the send queue, so a sink can get a fresh key per RDMA operation without a system call.
 *
 * <p>Life cycle: <em>free</em> (no key works) → {@link #bumpKey()} → post
 * {@link SendOpcode#REG_MR} naming this region and a buffer window → <em>valid</em> under
 * {@link #key()} → {@link SendOpcode#LOCAL_INV}, a received {@link SendOpcode#SEND_WITH_INV} or a
 * {@link SendOpcode#RDMA_READ_WITH_INV} → free again. Once invalidated, the key fails at once.
 *
 * <p>Threading: the owner MUST call {@link #bumpKey()} only while the region is free and no work
 * request naming it is outstanding. Ownership: the allocator owns it and MUST close it.
 */
public interface FastRegistrationRegion extends AutoCloseable {
    /** @return the protection domain the region was allocated in */
    ProtectionDomain protectionDomain();

    /** @return the largest number of bytes one registration may map */
    int maxLength();

    /**
     * @return the key the next (or current) registration uses, as both lkey and rkey: the 24-bit
     *         index of the region and an 8-bit tag that {@link #bumpKey()} changes
     */
    int key();

    /**
     * The virtual address at which a registration maps the first byte of its buffer window; the
     * window's byte {@code i} is at {@code address() + i}.
     *
     * @return the base address of the mapping
     */
    long address();

    /**
     * Changes the key's low 8 bits (ib_update_fast_reg_key), so keys handed out for earlier
     * registrations can never match again.
     *
     * @return the new key
     */
    int bumpKey();

    /**
     * Deallocates the region; its key stops working. Closing twice does nothing.
     *
     * @throws VerbsException when the device refuses
     */
    @Override
    void close() throws VerbsException;
}
