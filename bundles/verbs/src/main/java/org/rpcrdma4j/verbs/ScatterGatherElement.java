package org.rpcrdma4j.verbs;

/**
 * One scatter/gather element (ibv_sge): a byte range of registered memory named by virtual
 * address and local key.
 *
 * <p>Mutable and reusable; owned by the work request that holds it. The provider copies it when
 * the request is posted, so it MAY be changed as soon as the post returns. Not thread-safe.
 */
public final class ScatterGatherElement {
    private long address;
    private int length;
    private int lkey;

    /**
     * Points this element at a range of a registered region.
     *
     * @param region the region
     * @param index the first byte's buffer index
     * @param length the number of bytes
     * @return this element
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public ScatterGatherElement set(MemoryRegion region, int index, int length) {
        if (index < 0 || length < 0 || length > region.length() - index) {
            throw new IndexOutOfBoundsException("range [" + index + ", +" + length + ") outside a region of " + region.length() + " bytes");
        }
        return set(region.addressOf(index), length, region.lkey());
    }

    /**
     * Sets the raw fields (e.g. for a fast-registered window, or to test a provider's checks).
     *
     * @param address the virtual address of the first byte
     * @param length the number of bytes
     * @param lkey the local key of the region containing the range
     * @return this element
     */
    public ScatterGatherElement set(long address, int length, int lkey) {
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** @return the virtual address of the first byte */
    public long address() {
        return address;
    }

    /** @return the number of bytes */
    public int length() {
        return length;
    }

    /** @return the local key */
    public int lkey() {
        return lkey;
    }

    @Override
    public String toString() {
        return "sge[0x" + Long.toHexString(address) + "+" + length + " lkey=0x" + Integer.toHexString(lkey) + "]";
    }
}
