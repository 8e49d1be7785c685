package org.rpcrdma4j.registration.lkey.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * SlabSinkPool - equal sinks cut from one registered slab, handed out from a free stack.
 *
 * <p>Ownership: owns the slab's registration, released by {@link #close()}. Confined to the
 * transport's completion thread.
 */
public final class SlabSinkPool implements SinkPool {
    private final RegistrationStrategy strategy;
    private final MemoryRegion region;
    private final int sinkLength;
    private final int pageSize;
    private final SlabSink[] sinks;
    private final int[] freeStack;
    private int freeCount;
    private boolean closed;

    private SlabSinkPool(RegistrationStrategy strategy, MemoryRegion region, int count, int sinkLength, int pageSize) {
        this.strategy = strategy;
        this.region = region;
        this.sinkLength = sinkLength;
        this.pageSize = pageSize;
        this.sinks = new SlabSink[count];
        this.freeStack = new int[count];
        ByteBuffer readOnly = region.buffer().asReadOnlyBuffer();
        for (int i = 0; i < count; i++) {
            sinks[i] = new SlabSink(i, i * sinkLength, readOnly.slice(i * sinkLength, sinkLength));
            freeStack[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /**
     * create() - allocate and register the slab.
     *
     * @return the pool
     * @throws VerbsException when the registration is refused (nothing stays registered)
     */
    public static SlabSinkPool create(RegistrationStrategy strategy, ProtectionDomain pd, SinkPoolParameters p)
            throws VerbsException {
        int sinkLength = (int) Math.min(p.maxSinkLength(), (long) p.pageSize() * p.maxReadSge());
        int count = (int) Math.min(p.sinkCount(), Integer.MAX_VALUE / sinkLength);
        int access = Access.LOCAL_WRITE;
        if (pd.device().capabilities().transportType().readSinkRequiresRemoteWrite()) {
            access |= Access.REMOTE_WRITE;
        }
        MemoryRegion region = pd.registerMemory(ByteBuffer.allocateDirect(count * sinkLength), access);
        return new SlabSinkPool(strategy, region, count, sinkLength, p.pageSize());
    }

    @Override
    public RegistrationStrategy strategy() {
        return strategy;
    }

    @Override
    public int sinkLength() {
        return sinkLength;
    }

    @Override
    public ReadSink allocate() {
        return closed || freeCount == 0 ? null : sinks[freeStack[--freeCount]];
    }

    @Override
    public int outstanding() {
        return sinks.length - freeCount;
    }

    @Override
    public int capacity() {
        return sinks.length;
    }

    @Override
    public int liveRegistrations() {
        return closed ? 0 : 1;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (outstanding() != 0) {
            throw new IllegalStateException(outstanding() + " sinks are still outstanding");
        }
        closed = true;
        try {
            region.deregister();
        } catch (VerbsException e) {
            throw new IllegalStateException("the slab could not be deregistered", e);
        }
    }

    /** One slab window; page-sized SGEs under the slab's lkey. */
    private final class SlabSink implements ReadSink {
        private final int index;
        private final int offset;
        private final ByteBuffer data;

        SlabSink(int index, int offset, ByteBuffer data) {
            this.index = index;
            this.offset = offset;
            this.data = data;
        }

        @Override
        public SinkPool pool() {
            return SlabSinkPool.this;
        }

        @Override
        public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
            SendWorkRequest read = chain.add(SendOpcode.RDMA_READ).remote(remoteAddress, rkey);
            for (int at = 0; at < length; at += pageSize) {
                read.addSge(region, offset + at, Math.min(pageSize, length - at));
            }
            return true;
        }

        @Override
        public void readCompleted(boolean success) {
            // The slab stays registered: nothing to undo.
        }

        @Override
        public ByteBuffer data() {
            return data;
        }

        @Override
        public void free() {
            freeStack[freeCount++] = index;
        }
    }
}
