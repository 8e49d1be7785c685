package org.rpcrdma4j.registration.frmr.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.AbstractSinkPool;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.FastRegistrationRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * FastRegistrationSinkPool - sinks from an unregistered slab, each with its own fast-registration
 * region: REG_MR under a bumped key, READ through that key, then LOCAL_INV (READ_WITH_INV on
 * iWARP, as Linux chooses), all on the send queue.
 *
 * <p>A chain that fails may leave the key valid: the region is then replaced (closed and
 * allocated again), so a stale key never survives. Ownership: owns the regions, closed by
 * {@link #close()}. Confined to the transport's completion thread.
 */
public final class FastRegistrationSinkPool extends AbstractSinkPool {
    private final ProtectionDomain pd;
    private final int access;
    private final boolean readWithInvalidate;
    private final FrSink[] sinks;
    private int validKeys;

    private FastRegistrationSinkPool(RegistrationStrategy strategy, ProtectionDomain pd, ByteBuffer slab,
                                     FastRegistrationRegion[] regions, int sinkLength) {
        super(strategy, slab, regions.length, sinkLength);
        this.pd = pd;
        this.access = SinkAccess.of(pd);
        this.readWithInvalidate = pd.device().capabilities().transportType() == TransportType.IWARP;
        this.sinks = new FrSink[regions.length];
        for (int i = 0; i < regions.length; i++) {
            sinks[i] = new FrSink(i, slab, offsetOf(i), dataOf(i), regions[i]);
            install(i, sinks[i]);
        }
    }

    /**
     * create() - allocate the slab and one region per sink.
     *
     * @return the pool
     * @throws VerbsException when a region is refused (those already allocated are closed)
     */
    public static FastRegistrationSinkPool create(RegistrationStrategy strategy, ProtectionDomain pd, SinkPoolParameters p)
            throws VerbsException {
        int sinkLength = Math.min(p.maxSinkLength(), pd.device().capabilities().maxFastRegistrationLength());
        int count = (int) Math.min(p.sinkCount(), Integer.MAX_VALUE / sinkLength);
        FastRegistrationRegion[] regions = new FastRegistrationRegion[count];
        try {
            for (int i = 0; i < count; i++) {
                regions[i] = pd.allocateFastRegistrationRegion(sinkLength);
            }
        } catch (VerbsException | RuntimeException e) {
            for (FastRegistrationRegion r : regions) {
                closeQuietly(r);
            }
            throw e;
        }
        return new FastRegistrationSinkPool(strategy, pd, ByteBuffer.allocateDirect(count * sinkLength), regions, sinkLength);
    }

    @Override
    public int liveRegistrations() {
        return validKeys;
    }

    @Override
    protected void releaseRegistrations() {
        for (FrSink s : sinks) {
            closeQuietly(s.region);
            s.region = null;
        }
    }

    private static void closeQuietly(FastRegistrationRegion region) {
        if (region == null) {
            return;
        }
        try {
            region.close();
        } catch (VerbsException e) {
            // The device refused: nothing more can be done for this region; its key is not ours any more.
        }
    }

    /** One slab window with its own fast-registration region. */
    private final class FrSink implements ReadSink {
        private final int index;
        private final ByteBuffer slab;
        private final int offset;
        private final ByteBuffer data;
        private FastRegistrationRegion region;
        private boolean keyValid;

        FrSink(int index, ByteBuffer slab, int offset, ByteBuffer data, FastRegistrationRegion region) {
            this.index = index;
            this.slab = slab;
            this.offset = offset;
            this.data = data;
            this.region = region;
        }

        @Override
        public SinkPool pool() {
            return FastRegistrationSinkPool.this;
        }

        @Override
        public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
            if (region == null) {
                return false;
            }
            int key = region.bumpKey();
            chain.add(SendOpcode.REG_MR).registration(region, slab, offset, length, access);
            SendWorkRequest read = chain.add(readWithInvalidate ? SendOpcode.RDMA_READ_WITH_INV : SendOpcode.RDMA_READ)
                    .remote(remoteAddress, rkey);
            read.sge(0).set(region.address(), length, key);
            read.sgeCount(1);
            if (readWithInvalidate) {
                read.invalidateKey(key);
            } else {
                chain.add(SendOpcode.LOCAL_INV).invalidateKey(key);
            }
            keyValid = true;
            validKeys++;
            return true;
        }

        @Override
        public void readCompleted(boolean success) {
            if (!keyValid) {
                return;
            }
            keyValid = false;
            validKeys--;
            if (!success) {
                replaceRegion();
            }
        }

        /** The chain failed: the key may still be valid, so the region is replaced. */
        private void replaceRegion() {
            closeQuietly(region);
            try {
                region = pd.allocateFastRegistrationRegion(sinkLength());
            } catch (VerbsException e) {
                region = null;
            }
        }

        @Override
        public ByteBuffer data() {
            return data;
        }

        @Override
        public void free() {
            recycle(index);
        }
    }
}
