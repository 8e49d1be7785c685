package org.rpcrdma4j.registration.frmr.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * PerRequestSinkPool - FRMR without fast registration (user-space verbs): each sink window is
 * registered (ibv_reg_mr, a fresh key) just before its READ and deregistered as soon as the READ
 * completes, so the key lives exactly as long as the READ.
 *
 * <p>Registration is a system call per READ: slower than fast registration, same contract.
 * Ownership: owns at most one registration per sink in flight. Confined to the completion thread.
 */
public final class PerRequestSinkPool implements SinkPool {
    private final RegistrationStrategy strategy;
    private final ProtectionDomain pd;
    private final int sinkLength;
    private final int access;
    private final PrSink[] sinks;
    private final int[] freeStack;
    private int freeCount;
    private int registered;
    private boolean closed;

    private PerRequestSinkPool(RegistrationStrategy strategy, ProtectionDomain pd, int count, int sinkLength) {
        this.strategy = strategy;
        this.pd = pd;
        this.sinkLength = sinkLength;
        this.access = SinkAccess.of(pd);
        this.sinks = new PrSink[count];
        this.freeStack = new int[count];
        ByteBuffer slab = ByteBuffer.allocateDirect(count * sinkLength);
        for (int i = 0; i < count; i++) {
            ByteBuffer window = slab.slice(i * sinkLength, sinkLength);
            sinks[i] = new PrSink(i, window, window.asReadOnlyBuffer());
            freeStack[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /**
     * create() - allocate the (unregistered) sink memory.
     *
     * @return the pool
     */
    public static PerRequestSinkPool create(RegistrationStrategy strategy, ProtectionDomain pd, SinkPoolParameters p) {
        int count = (int) Math.min(p.sinkCount(), Integer.MAX_VALUE / p.maxSinkLength());
        return new PerRequestSinkPool(strategy, pd, count, p.maxSinkLength());
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
        return registered;
    }

    @Override
    public void close() {
        if (outstanding() != 0) {
            throw new IllegalStateException(outstanding() + " sinks are still outstanding");
        }
        closed = true;
    }

    /** One window, registered for the duration of one READ. */
    private final class PrSink implements ReadSink {
        private final int index;
        private final ByteBuffer window;
        private final ByteBuffer data;
        private MemoryRegion region;

        PrSink(int index, ByteBuffer window, ByteBuffer data) {
            this.index = index;
            this.window = window;
            this.data = data;
        }

        @Override
        public SinkPool pool() {
            return PerRequestSinkPool.this;
        }

        @Override
        public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
            try {
                region = pd.registerMemory(window, access);
            } catch (VerbsException e) {
                return false;
            }
            registered++;
            chain.add(SendOpcode.RDMA_READ).remote(remoteAddress, rkey).addSge(region, 0, length);
            return true;
        }

        @Override
        public void readCompleted(boolean success) {
            if (region == null) {
                return;
            }
            try {
                region.deregister();
            } catch (VerbsException e) {
                // Deregistration refused: the key dies with the protection domain; do not retry it.
            }
            region = null;
            registered--;
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
