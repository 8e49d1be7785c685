package org.rpcrdma4j.verbs;

/**
 * A receive work request (ibv_recv_wr): where the peer's next SEND lands.
 *
 * <p>Mutable and reusable: the provider copies the request and its SGEs when it is posted, so
 * the caller MAY reuse it as soon as {@link QueuePair#postReceive} returns (steady state
 * allocates nothing). Requests chain through {@link #next(ReceiveWorkRequest)}. Not thread-safe;
 * owned by the caller.
 */
public final class ReceiveWorkRequest {
    private final ScatterGatherElement[] sges;
    private int sgeCount;
    private long id;
    private ReceiveWorkRequest next;

    /**
     * Creates a request able to carry up to {@code maxSge} SGEs.
     *
     * @param maxSge the SGE array size, at least 1
     */
    public ReceiveWorkRequest(int maxSge) {
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be positive: " + maxSge);
        }
        sges = new ScatterGatherElement[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sges[i] = new ScatterGatherElement();
        }
    }

    /** @return the caller's id, reported as {@link WorkCompletion#id()} */
    public long id() {
        return id;
    }

    /**
     * @param id the caller's id (e.g. an index into a pool of receive contexts)
     * @return this request
     */
    public ReceiveWorkRequest id(long id) {
        this.id = id;
        return this;
    }

    /** @return the number of SGEs in use */
    public int sgeCount() {
        return sgeCount;
    }

    /**
     * @param count the number of SGEs in use, 0..{@link #maxSge()}
     * @return this request
     */
    public ReceiveWorkRequest sgeCount(int count) {
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
     * Uses exactly one SGE covering a range of a region.
     *
     * @param region the receive buffer's region
     * @param index the first byte's buffer index
     * @param length the number of bytes
     * @return this request
     */
    public ReceiveWorkRequest buffer(MemoryRegion region, int index, int length) {
        sges[0].set(region, index, length);
        sgeCount = 1;
        return this;
    }

    /** @return the next request of the chain, or null */
    public ReceiveWorkRequest next() {
        return next;
    }

    /**
     * @param next the next request of the chain, or null to end it
     * @return this request
     */
    public ReceiveWorkRequest next(ReceiveWorkRequest next) {
        this.next = next;
        return this;
    }
}
