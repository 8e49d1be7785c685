package org.rpcrdma4j.transport.spi;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * AbstractSinkPool - the bookkeeping every {@link SinkPool} shares: equal sink windows cut from one
 * direct slab and handed out from a free stack, the closed state, and the registration of one
 * window for one READ (the way Linux's rw API registers an MR per READ where a READ exposes its
 * sink to the peer). A strategy writes only how a window is named to the NIC.
 *
 * <p>A subclass's constructor calls {@link #install} once for every index before the pool is
 * used; its sinks call {@link #recycle} from {@link ReadSink#free()}. Allocation and freeing never
 * allocate Java objects.
 *
 * <p>Threading: confined to the transport's completion thread, like every pool. Ownership: the
 * slab's memory lives as long as the pool; the subclass releases its registrations in
 * {@link #releaseRegistrations()}, called once by {@link #close()}; a per-READ registration is
 * owned by its sink from {@link #registerForOneRead} until {@link #deregisterAfterRead}.
 */
public abstract class AbstractSinkPool implements SinkPool {
    private final RegistrationStrategy strategy;
    private final ByteBuffer slab;
    private final ByteBuffer readOnlySlab;
    private final int sinkLength;
    private final ReadSink[] sinks;
    private final int[] freeStack;
    private int freeCount;
    private int perReadRegistrations;
    private boolean closed;

    /**
     * @param strategy   the strategy that creates this pool
     * @param slab       direct memory of at least {@code count * sinkLength} bytes, owned by the pool
     * @param count      the number of sinks
     * @param sinkLength the capacity of every sink in bytes
     */
    protected AbstractSinkPool(RegistrationStrategy strategy, ByteBuffer slab, int count, int sinkLength) {
        if (!slab.isDirect() || (long) count * sinkLength > slab.capacity()) {
            throw new IllegalArgumentException("a sink slab must be direct memory of " + count + " x " + sinkLength
                    + " bytes, was " + slab);
        }
        this.strategy = strategy;
        this.slab = slab;
        this.readOnlySlab = slab.asReadOnlyBuffer();
        this.sinkLength = sinkLength;
        this.sinks = new ReadSink[count];
        this.freeStack = new int[count];
    }

    /**
     * install() - put the sink of one index in the pool, free; called by the subclass's constructor
     * for indexes 0 to count - 1 in order.
     */
    protected final void install(int index, ReadSink sink) {
        if (index != freeCount || sinks[index] != null) {
            throw new IllegalStateException("sinks must be installed once each, in order; got index " + index);
        }
        sinks[index] = sink;
        freeStack[sinks.length - 1 - index] = index; // the first installed is the first allocated
        freeCount++;
    }

    /** @return the slab (writable) from which every window is cut */
    protected final ByteBuffer slab() {
        return slab;
    }

    /** @return the offset of the window of that index in the slab */
    protected final int offsetOf(int index) {
        return index * sinkLength;
    }

    /** @return the writable window of that index (a new view: call once, at construction) */
    protected final ByteBuffer windowOf(int index) {
        return slab.slice(offsetOf(index), sinkLength);
    }

    /** @return the read-only view of the window of that index handed to the upper layer (call once) */
    protected final ByteBuffer dataOf(int index) {
        return readOnlySlab.slice(offsetOf(index), sinkLength);
    }

    /** recycle() - the sink of that index is free again ({@link ReadSink#free()} of a subclass's sink). */
    protected final void recycle(int index) {
        freeStack[freeCount++] = index;
    }

    /**
     * registerForOneRead() - register one window for one READ under a fresh key and add that READ
     * (one SGE) to the chain; the key lives until {@link #deregisterAfterRead}.
     *
     * @return the registration the sink now owns, or null when the device refused it (nothing added)
     */
    protected final MemoryRegion registerForOneRead(ProtectionDomain pd, ByteBuffer window, int access,
            ReadRequestChain chain, int length, long remoteAddress, int rkey) {
        MemoryRegion region;
        try {
            region = pd.registerMemory(window, access);
        } catch (VerbsException e) {
            return null;
        }
        perReadRegistrations++;
        chain.add(SendOpcode.RDMA_READ).remote(remoteAddress, rkey).addSge(region, 0, length);
        return region;
    }

    /** deregisterAfterRead() - end a registration of {@link #registerForOneRead}; null does nothing. */
    protected final void deregisterAfterRead(MemoryRegion region) {
        if (region == null) {
            return;
        }
        try {
            region.deregister();
        } catch (VerbsException e) {
            // Refused: the key dies with the protection domain; retrying would not help.
        }
        perReadRegistrations--;
    }

    /** @return the per-READ registrations alive now */
    protected final int perReadRegistrations() {
        return perReadRegistrations;
    }

    /** @return true once {@link #close()} has run */
    protected final boolean isClosed() {
        return closed;
    }

    /**
     * releaseRegistrations() - release what the subclass holds with the device for the pool's
     * lifetime; called once, by {@link #close()}, when no sink is outstanding.
     */
    protected abstract void releaseRegistrations();

    @Override
    public final RegistrationStrategy strategy() {
        return strategy;
    }

    @Override
    public final int sinkLength() {
        return sinkLength;
    }

    @Override
    public final ReadSink allocate() {
        return closed || freeCount == 0 ? null : sinks[freeStack[--freeCount]];
    }

    @Override
    public final int outstanding() {
        return sinks.length - freeCount;
    }

    @Override
    public final int capacity() {
        return sinks.length;
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        if (outstanding() != 0) {
            throw new IllegalStateException(outstanding() + " sinks are still outstanding");
        }
        closed = true;
        releaseRegistrations();
    }
}
