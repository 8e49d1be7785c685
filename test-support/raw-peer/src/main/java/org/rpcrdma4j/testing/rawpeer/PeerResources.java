package org.rpcrdma4j.testing.rawpeer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * PeerResources - everything a {@link RawPeer} holds of the verbs provider: its connection
 * manager, connection (and queue pair), protection domain, completion queue and the four
 * registered regions (send and receive slots, source, sink).
 *
 * <p>{@link #open} acquires them in order and, when a step fails, releases what the earlier steps
 * got before it rethrows. {@link #release()} gives every one back even when one of them fails,
 * and rethrows the first failure afterwards. Ownership: the {@link RawPeer} that opened them.
 */
final class PeerResources {
    ConnectionManager cm;
    Connection connection;
    ProtectionDomain pd;
    CompletionQueue cq;
    QueuePair qp;
    MemoryRegion sendRegion;
    MemoryRegion receiveRegion;
    MemoryRegion sourceRegion;
    MemoryRegion sinkRegion;

    private PeerResources() {
    }

    /** open() - a connection (not yet connected) to {@code server} with the memory and queues of {@code shape}. */
    static PeerResources open(VerbsProvider provider, InetSocketAddress server, PeerShape shape) throws VerbsException {
        PeerResources r = new PeerResources();
        try {
            r.cm = provider.openConnectionManager();
            r.connection = r.cm.createConnection(null, server, Duration.ofSeconds(5));
            r.pd = r.connection.device().allocateProtectionDomain();
            int entries = 2 * (shape.sendSlots() + shape.receiveSlots());
            r.cq = r.connection.device().createCompletionQueue(
                    Math.min(entries, r.connection.device().capabilities().maxCompletionQueueEntries()));
            r.sendRegion = r.register(shape.sendSlots() * shape.slotBytes(), 0);
            r.receiveRegion = r.register(shape.receiveSlots() * shape.slotBytes(), Access.LOCAL_WRITE);
            r.sourceRegion = r.register(shape.sourceBytes(), shape.sourceAccess());
            r.sinkRegion = r.register(shape.sinkBytes(), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            int responder = Math.min(shape.responderResources(), r.connection.device().capabilities().maxIncomingReads());
            r.qp = r.connection.createQueuePair(r.pd, QueuePairAttributes.builder(r.cq, r.cq)
                    .sendQueueDepth(shape.sendSlots()).receiveQueueDepth(shape.receiveSlots())
                    .initiatorDepth(1).responderResources(responder).build());
            return r;
        } catch (VerbsException | RuntimeException e) {
            r.releaseAfter(e);
            throw e;
        }
    }

    /** releaseAfter() - {@link #release()} after {@code cause} ended an open; a failure to release is suppressed in it. */
    void releaseAfter(Exception cause) {
        try {
            release();
        } catch (VerbsException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private MemoryRegion register(int bytes, int access) throws VerbsException {
        return bytes == 0 ? null : pd.registerMemory(ByteBuffer.allocateDirect(bytes), access);
    }

    /**
     * release() - destroy the connection (and its queue pair), close the completion queue,
     * deregister every region, close the domain and the manager: all of them, whatever fails.
     *
     * @throws VerbsException the first failure, the later ones suppressed in it
     */
    void release() throws VerbsException {
        Failures failures = new Failures();
        if (connection != null) {
            failures.run(connection::close);
        }
        if (cq != null) {
            failures.run(cq::close);
        }
        for (MemoryRegion region : new MemoryRegion[] {sendRegion, receiveRegion, sourceRegion, sinkRegion}) {
            if (region != null) {
                failures.run(region::deregister);
            }
        }
        if (pd != null) {
            failures.run(pd::close);
        }
        if (cm != null) {
            failures.run(cm::close);
        }
        failures.rethrow();
    }

    /** One release step. */
    private interface Step {
        void run() throws VerbsException;
    }

    /** The first failure of the release steps, with the later ones suppressed in it. */
    private static final class Failures {
        private Exception first;

        void run(Step step) {
            try {
                step.run();
            } catch (VerbsException | RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }

        void rethrow() throws VerbsException {
            if (first instanceof VerbsException v) {
                throw v;
            }
            if (first instanceof RuntimeException r) {
                throw r;
            }
        }
    }
}
