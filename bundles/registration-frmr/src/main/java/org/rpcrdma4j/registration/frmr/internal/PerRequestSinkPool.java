package org.rpcrdma4j.registration.frmr.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.AbstractSinkPool;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;

/**
 * PerRequestSinkPool - FRMR without fast registration (user-space verbs): each sink window is
 * registered (ibv_reg_mr, a fresh key) just before its READ and deregistered as soon as the READ
 * completes, so the key lives exactly as long as the READ.
 *
 * <p>Registration is a system call per READ: slower than fast registration, same contract.
 * Ownership: owns at most one registration per sink in flight. Confined to the completion thread.
 */
public final class PerRequestSinkPool extends AbstractSinkPool {
    private final ProtectionDomain pd;
    private final int access;

    private PerRequestSinkPool(RegistrationStrategy strategy, ProtectionDomain pd, int count, int sinkLength) {
        super(strategy, ByteBuffer.allocateDirect(count * sinkLength), count, sinkLength);
        this.pd = pd;
        this.access = SinkAccess.of(pd);
        for (int i = 0; i < count; i++) {
            install(i, new PrSink(i, windowOf(i), dataOf(i)));
        }
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
    public int liveRegistrations() {
        return perReadRegistrations();
    }

    @Override
    protected void releaseRegistrations() {
        // every registration ends with its READ: nothing lives as long as the pool
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
            region = registerForOneRead(pd, window, access, chain, length, remoteAddress, rkey);
            return region != null;
        }

        @Override
        public void readCompleted(boolean success) {
            deregisterAfterRead(region);
            region = null;
        }

        @Override
        public ByteBuffer data() {
            return data;
        }

        @Override
        public void free() {
            readCompleted(false); // freed without its completion: the key still ends here
            recycle(index);
        }
    }
}
