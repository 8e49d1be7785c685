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

    /**
     * WindowSink - a sink that is one window of the slab: its index in the free stack, its
     * writable window and the read-only view the upper layer gets, and, where a READ shows its
     * sink to the peer (iWARP), the window's registration for that one READ. A strategy's sink
     * says in {@link #prepareRead} how the window is named to the NIC, through
     * {@link #prepareReadUnderOwnKey} or a registration of its own.
     *
     * <p>Freeing the sink ends a per-READ key whose READ never completed.
     */
    protected abstract class WindowSink implements ReadSink {
        private final int index;
        private final ByteBuffer window;
        private final ByteBuffer data;
        /** The window's registration while its READ runs, when the sink registers per READ; else null. */
        private MemoryRegion forThisRead;

        /** @param index the window's index: its place in the slab and the free stack */
        protected WindowSink(int index) {
            this.index = index;
            this.window = windowOf(index);
            this.data = dataOf(index);
        }

        /** @return the offset of the window in the slab */
        protected final int offset() {
            return offsetOf(index);
        }

        /** @return the writable window (the memory a registration of this window covers) */
        protected final ByteBuffer window() {
            return window;
        }

        /**
         * prepareReadUnderOwnKey() - register this window for this READ alone, with that access,
         * and add the READ (one SGE); the key ends in {@link #readCompleted} or {@link #free()}.
         *
         * @return false when the device refused the registration (nothing added)
         */
        protected final boolean prepareReadUnderOwnKey(ProtectionDomain pd, int access, ReadRequestChain chain,
                int length, long remoteAddress, int rkey) {
            forThisRead = registerForOneRead(pd, window, access, chain, length, remoteAddress, rkey);
            return forThisRead != null;
        }

        @Override
        public final SinkPool pool() {
            return AbstractSinkPool.this;
        }

        @Override
        public final void readCompleted(boolean success) {
            // A registration that lives longer than one READ is the pool's to release, not this READ's.
            deregisterAfterRead(forThisRead);
            forThisRead = null;
        }

        @Override
        public final ByteBuffer data() {
            return data;
        }

        @Override
        public final void free() {
            readCompleted(false); // freed without its completion: a per-READ key still ends here
            recycle(index);
        }
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
