package org.rpcrdma4j.registration.frmr.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.spi.AbstractSinkPool;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * UserVerbsSinkPool - FRMR where the verbs have no fast registration (user space, as DiSNI): the
 * sink windows are registered with ibv_reg_mr, and how long a registration lives depends on
 * whether the peer ever learns its key.
 *
 * <ul>
 * <li><b>InfiniBand and RoCE:</b> an RDMA READ's sink is named only in the local SGE; the READ
 * request on the wire carries the peer's rkey, never ours. A sink needs local write and nothing
 * else, so each window is registered once, with {@link Access#LOCAL_WRITE} only, the first time a
 * READ lands in it, and that registration is reused by every later READ into the window until the
 * pool closes. No peer can reach memory through it. This is the rule Linux's rw API follows: it
 * uses the device's local DMA key for READ sinks on IB/RoCE and registers an MR per READ only on
 * iWARP.</li>
 * <li><b>iWARP:</b> the RDMA Read Request carries the sink's STag to the peer (RFC 5040, section
 * 4.4), and the sink must grant remote write. A window is then registered just before its READ
 * and deregistered as soon as the READ completes, so a key the peer has seen never outlives the
 * READ it was made for: one system call per READ each way.</li>
 * </ul>
 *
 * <p>Ownership: owns each window's lasting registration (IB/RoCE), released by {@link #close()},
 * or at most one per-READ registration per sink (iWARP), released by
 * {@link org.rpcrdma4j.transport.spi.ReadSink#readCompleted} or {@link org.rpcrdma4j.transport.spi.ReadSink#free()}. Confined to the completion thread.
 */
public final class UserVerbsSinkPool extends AbstractSinkPool {
    private final ProtectionDomain pd;
    /** True where the peer learns a sink's key (iWARP): registrations then live for one READ. */
    private final boolean registerPerRead;
    private final int perReadAccess;
    private final KeptWindowSink[] sinks;
    /** Windows registered for the pool's lifetime so far (IB/RoCE). */
    private int keptRegistrations;

    private UserVerbsSinkPool(RegistrationStrategy strategy, ProtectionDomain pd, int count, int sinkLength) {
        super(strategy, ByteBuffer.allocateDirect(count * sinkLength), count, sinkLength);
        this.pd = pd;
        this.registerPerRead = pd.device().capabilities().transportType().readSinkRequiresRemoteWrite();
        this.perReadAccess = SinkAccess.of(pd);
        this.sinks = new KeptWindowSink[count];
        for (int i = 0; i < count; i++) {
            sinks[i] = new KeptWindowSink(i);
            install(i, sinks[i]);
        }
    }

    /**
     * create() - allocate the sink memory; nothing is registered until a READ needs a window.
     *
     * @return the pool
     */
    public static UserVerbsSinkPool create(RegistrationStrategy strategy, ProtectionDomain pd, SinkPoolParameters p) {
        int count = (int) Math.min(p.sinkCount(), Integer.MAX_VALUE / p.maxSinkLength());
        return new UserVerbsSinkPool(strategy, pd, count, p.maxSinkLength());
    }

    @Override
    public int liveRegistrations() {
        return keptRegistrations + perReadRegistrations();
    }

    @Override
    protected void releaseRegistrations() {
        for (KeptWindowSink sink : sinks) {
            sink.releaseKept();
        }
    }

    /** One window: registered once and kept (IB/RoCE), or registered for one READ at a time (iWARP). */
    private final class KeptWindowSink extends WindowSink {
        /** The window's lasting local-write registration (IB/RoCE), once a READ needed it. */
        private MemoryRegion kept;

        KeptWindowSink(int index) {
            super(index);
        }

        @Override
        public boolean prepareRead(ReadRequestChain chain, int length, long remoteAddress, int rkey) {
            if (registerPerRead) {
                return prepareReadUnderOwnKey(pd, perReadAccess, chain, length, remoteAddress, rkey);
            }
            if (kept == null) {
                try {
                    kept = pd.registerMemory(window(), Access.LOCAL_WRITE);
                } catch (VerbsException e) {
                    return false; // the device refused: the caller reports it, nothing was added
                }
                keptRegistrations++;
            }
            chain.add(SendOpcode.RDMA_READ).remote(remoteAddress, rkey).addSge(kept, 0, length);
            return true;
        }

        void releaseKept() {
            if (kept == null) {
                return;
            }
            try {
                kept.deregister();
            } catch (VerbsException e) {
                // Refused: the registration dies with the protection domain; retrying would not help.
            }
            kept = null;
            keptRegistrations--;
        }
    }
}
