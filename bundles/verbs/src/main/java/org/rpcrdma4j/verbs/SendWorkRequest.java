package org.rpcrdma4j.verbs;

import java.nio.ByteBuffer;

/**
 * A send-queue work request (ibv_send_wr / ib_send_wr): SEND, SEND_WITH_INV, RDMA WRITE, RDMA
 * READ, READ_WITH_INV, LOCAL_INV or REG_MR.
 *
 * <p>Mutable and reusable: the provider copies the request, its SGEs and its fields when it is
 * posted, so the caller MAY reuse it as soon as {@link QueuePair#postSend} returns (steady state
 * allocates nothing). The memory it names MUST stay registered until its completion (or the
 * completion of a later signaled request on the same queue) has been polled. Requests chain
 * through {@link #next(SendWorkRequest)}. Not thread-safe; owned by the caller.
 *
 * <p>Which fields an opcode uses:
 * <ul>
 * <li>SEND: SGEs. SEND_WITH_INV: SGEs and {@link #invalidateKey()} (a key of the peer).</li>
 * <li>RDMA_WRITE: SGEs (source), {@link #remoteAddress()}, {@link #rkey()}.</li>
 * <li>RDMA_READ: SGEs (sink), remote address and rkey. RDMA_READ_WITH_INV: also
 * {@link #invalidateKey()}, the local sink's fast-registration key.</li>
 * <li>LOCAL_INV: {@link #invalidateKey()}.</li>
 * <li>REG_MR: {@link #registrationRegion()}, {@link #registrationBuffer()} window and
 * {@link #registrationAccess()}.</li>
 * </ul>
 */
public final class SendWorkRequest {
    /** Fence: wait for earlier RDMA READs of this queue to finish first (IBV_SEND_FENCE). */
    public static final int FENCE = 1;
    /** Generate a completion on success (IBV_SEND_SIGNALED); errors always complete. */
    public static final int SIGNALED = 2;
    /** Solicited event at the receiver (IBV_SEND_SOLICITED). */
    public static final int SOLICITED = 4;
    /** Copy the payload at post time (IBV_SEND_INLINE); at most {@code maxInlineData} bytes. */
    public static final int INLINE = 8;

    private final ScatterGatherElement[] sges;
    private int sgeCount;
    private long id;
    private SendOpcode opcode = SendOpcode.SEND;
    private int flags;
    private long remoteAddress;
    private int rkey;
    private int invalidateKey;
    private FastRegistrationRegion registrationRegion;
    private ByteBuffer registrationBuffer;
    private int registrationIndex;
    private int registrationLength;
    private int registrationAccess;
    private SendWorkRequest next;

    /**
     * Creates a request able to carry up to {@code maxSge} SGEs.
     *
     * @param maxSge the SGE array size, at least 1
     */
    public SendWorkRequest(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be positive: " + maxSge);
        }
        sges = new ScatterGatherElement[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sges[i] = new ScatterGatherElement();
        }
    }

    /**
     * Resets every field but the SGE array and the chain link, for reuse with another opcode.
     *
     * @param opcode the new opcode
     * @param id the caller's id, reported as {@link WorkCompletion#id()}
     * @param flags a combination of {@link #SIGNALED}, {@link #FENCE}, {@link #SOLICITED},
     *        {@link #INLINE}
     * @return this request
     */
    public SendWorkRequest reset(SendOpcode opcode, long id, int flags) {
        this.opcode = opcode;
        this.id = id;
        this.flags = flags;
        sgeCount = 0;
        remoteAddress = 0;
        rkey = 0;
        invalidateKey = 0;
        registrationRegion = null;
        registrationBuffer = null;
        registrationIndex = 0;
        registrationLength = 0;
        registrationAccess = 0;
        return this;
    }

    /** @return the opcode */
    public SendOpcode opcode() {
        return opcode;
    }

    /** @return the caller's id */
    public long id() {
        return id;
    }

    /** @return the flags */
    public int flags() {
        return flags;
    }

    /** @return whether {@link #SIGNALED} is set */
    public boolean isSignaled() {
        return (flags & SIGNALED) != 0;
    }

    /** @return the number of SGEs in use */
    public int sgeCount() {
        return sgeCount;
    }

    /**
     * @param count the number of SGEs in use, 0..{@link #maxSge()}
     * @return this request
     */
    public SendWorkRequest sgeCount(int count) {
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("sgeCount must be within 0.." + sges.length + ": " + count);
        }
        this.sgeCount = count;
        return this;
    }

    /** @return the size of the SGE array */
    public int maxSge() {
        return sges.length;
    }

    /**
     * @param index an SGE index below {@link #maxSge()}
     * @return the reusable SGE at that index
     */
    public ScatterGatherElement sge(int index) {
        return sges[index];
    }

    /**
     * Appends one SGE covering a range of a region.
     *
     * @param region the region
     * @param index the first byte's buffer index
     * @param length the number of bytes
     * @return this request
     * @throws IllegalStateException when every SGE is already in use
     */
    public SendWorkRequest addSge(MemoryRegion region, int index, int length) {
        if (sgeCount == sges.length) {
            throw new IllegalStateException("all " + sges.length + " SGEs are in use");
        }
        sges[sgeCount++].set(region, index, length);
        return this;
    }

    /**
     * Sets the peer memory of an RDMA READ or WRITE.
     *
     * @param address the peer's virtual address (an RPC-over-RDMA segment offset)
     * @param rkey the peer's remote key (the segment handle)
     * @return this request
     */
    public SendWorkRequest remote(long address, int rkey) {
        this.remoteAddress = address;
        this.rkey = rkey;
        return this;
    }

    /** @return the peer's virtual address */
    public long remoteAddress() {
        return remoteAddress;
    }

    /** @return the peer's remote key */
    public int rkey() {
        return rkey;
    }

    /**
     * @param key the key to invalidate: the peer's for SEND_WITH_INV, a local fast-registration
     *        key for LOCAL_INV and RDMA_READ_WITH_INV
     * @return this request
     */
    public SendWorkRequest invalidateKey(int key) {
        this.invalidateKey = key;
        return this;
    }

    /** @return the key to invalidate */
    public int invalidateKey() {
        return invalidateKey;
    }

    /**
     * Sets the REG_MR fields: map {@code buffer[index, index + length)} into the region under its
     * current {@link FastRegistrationRegion#key()}.
     *
     * @param region a free fast-registration region of the queue pair's protection domain
     * @param buffer a direct buffer
     * @param index the window's first buffer index
     * @param length the window's length, at most the region's max length
     * @param access the {@link Access} flags to grant
     * @return this request
     */
    public SendWorkRequest registration(FastRegistrationRegion region, ByteBuffer buffer, int index, int length, int access) {
        this.registrationRegion = region;
        this.registrationBuffer = buffer;
        this.registrationIndex = index;
        this.registrationLength = length;
        this.registrationAccess = access;
        return this;
    }

    /** @return the REG_MR region */
    public FastRegistrationRegion registrationRegion() {
        return registrationRegion;
    }

    /** @return the REG_MR buffer */
    public ByteBuffer registrationBuffer() {
        return registrationBuffer;
    }

    /** @return the REG_MR window's first buffer index */
    public int registrationIndex() {
        return registrationIndex;
    }

    /** @return the REG_MR window's length */
    public int registrationLength() {
        return registrationLength;
    }

    /** @return the REG_MR access flags */
    public int registrationAccess() {
        return registrationAccess;
    }

    /** @return the next request of the chain, or null */
    public SendWorkRequest next() {
        return next;
    }

    /**
     * @param next the next request of the chain, or null to end it
     * @return this request
     */
    public SendWorkRequest next(SendWorkRequest next) {
        this.next = next;
        return this;
    }

    @Override
    public String toString() {
        return "SendWorkRequest[" + opcode + " id=" + id + " flags=" + flags + " sges=" + sgeCount + "]";
    }
}
