package org.rpcrdma4j.registration.lkey.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.AbstractSinkPool;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * SlabSinkPool - equal sinks cut from one slab, handed out from a free stack.
 *
 * <p>On InfiniBand and RoCE the slab is registered once, with LOCAL_WRITE only: a READ's sink
 * never leaves the host, so no peer can ever name it. On iWARP an RDMA Read Request carries the
 * sink's STag and offset to the peer (RFC 5040, section 4.4) and the sink must grant
 * REMOTE_WRITE, so a slab registered for its lifetime would let any client WRITE into every other
 * client's sinks. There the slab stays unregistered and each sink window is registered just
 * before its READ and deregistered as soon as the READ completes (as Linux's rw API registers an
 * MR per READ on iWARP): no remote key outlives its I/O, at the price of a registration per READ.
 *
 * <p>Ownership: owns the slab's registration (IB/RoCE), released by {@link #close()}, or the
 * per-READ registrations (iWARP), released by {@link ReadSink#readCompleted}. Confined to the
 * transport's completion thread.
 */
public final class SlabSinkPool extends AbstractSinkPool {
    /** The access of a per-READ registration on iWARP, where the READ response is placed like a remote write. */
    private static final int PER_READ_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE;

    private final ProtectionDomain pd;
    /** The slab's lifetime registration (LOCAL_WRITE only), or null when sinks are registered per READ. */
    private final MemoryRegion region;

    private SlabSinkPool(RegistrationStrategy strategy, ProtectionDomain pd, ByteBuffer slab, MemoryRegion region,
                         int count, int sinkLength) {
        super(strategy, slab, count, sinkLength);
        this.pd = pd;
        this.region = region;
        for (int i = 0; i < count; i++) {
            install(i, new SlabSink(i));
        }
    }

    /**
     * create() - allocate the slab; register it for its lifetime where no peer can see a READ's
     * sink (InfiniBand, RoCE), or leave it to per-READ registration where one can (iWARP).
     *
     * <p>Either way a READ names its sink with one SGE, and a sink holds
     * {@link SinkPoolParameters#maxSinkLength()}: on IB/RoCE the slab is one virtually contiguous
     * registration, so a window of any length is one SGE under the slab's lkey (the kernel's
     * svcrdma needs an SGE per page because its pages are not contiguous; ours are). One SGE per
     * 4 KiB page would cap a sink at {@code pageSize * maxReadSge} (128 KiB on rxe: a 1 MiB read
     * chunk in 8 READs of 32 SGEs, each SGE serialized into the provider's work request, where
     * frmr takes 4 READs of one); iWARP: one SGE under a registration of just that window.
     *
     * @return the pool
     * @throws VerbsException when the slab's registration is refused (nothing stays registered)
     */
    public static SlabSinkPool create(RegistrationStrategy strategy, ProtectionDomain pd, SinkPoolParameters p)
            throws VerbsException {
        boolean perRead = isReadSinkVisibleToPeer(pd);
        int sinkLength = p.maxSinkLength();
        int count = (int) Math.min(p.sinkCount(), Integer.MAX_VALUE / sinkLength);
        ByteBuffer slab = ByteBuffer.allocateDirect(count * sinkLength);
        MemoryRegion region = perRead ? null : pd.registerMemory(slab, Access.LOCAL_WRITE);
        return new SlabSinkPool(strategy, pd, slab, region, count, sinkLength);
    }

    /**
     * @return true when a READ hands its sink's key to the peer and the sink must grant remote
     *         write (iWARP): a long-lived registration would then expose every sink to every peer
     */
    private static boolean isReadSinkVisibleToPeer(ProtectionDomain pd) {
        return pd.device().capabilities().transportType().readSinkRequiresRemoteWrite();
    }

    @Override
    public int liveRegistrations() {
        return perReadRegistrations() + (region == null || isClosed() ? 0 : 1);
    }

    @Override
    protected void releaseRegistrations() {
        if (region == null) {
            return;
        }
        try {
            region.deregister();
        } catch (VerbsException e) {
            throw new IllegalStateException("the slab could not be deregistered", e);
        }
    }

    /** One slab window: one SGE under the slab's lkey, or one SGE under a registration of the window for one READ. */
    private final class SlabSink extends WindowSink {
        SlabSink(int index) {
            super(index);
        }

        @Override
        public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
            if (region == null) {
                // iWARP: a fresh key for this window that the peer learns from this READ only
                return prepareReadUnderOwnKey(pd, PER_READ_ACCESS, chain, length, remoteAddress, rkey);
            }
            chain.add(SendOpcode.RDMA_READ).remote(remoteAddress, rkey).addSge(region, offset(), length);
            return true;
        }
    }
}
