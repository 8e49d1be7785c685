package org.rpcrdma4j.client;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

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
 * Everything one client holds on the verbs layer: its connection manager, the connection with
 * its queue pair, the protection domain, one completion queue for sends and receives, the
 * receive ring and (once connected) the send slab.
 *
 * <p>Ownership: this object owns all of them and releases them in {@link #release()} in reverse
 * order of creation: the connection (and its queue pair) first, so no work request names the
 * slabs any more, then the slabs, the completion queue, the domain and the manager. Threading:
 * {@link #open} and {@link #release} run on one thread at a time; the getters are safe from any thread after
 * {@code open} returned.
 */
final class VerbsResources {
    private final ConnectionManager manager;
    private Connection connection;
    private ProtectionDomain protectionDomain;
    private Registrar registrar;
    private CompletionQueue completionQueue;
    private ReceiveRing receiveRing;
    private volatile MemoryRegion sendSlab;

    private VerbsResources(ConnectionManager manager) {
        this.manager = manager;
    }

    /**
     * Resolves the server, creates the queue pair and posts every receive; does not connect.
     *
     * @param provider the verbs provider
     * @param server the server's address
     * @param config the client's configuration
     * @param counters where registrations are counted
     * @return the resources, owned by the caller
     * @throws VerbsException when any step fails (everything created so far is released)
     */
    static VerbsResources open(VerbsProvider provider, InetSocketAddress server, ClientConfig config, ClientCounters counters)
            throws VerbsException {
        VerbsResources r = new VerbsResources(provider.openConnectionManager());
        try {
            r.connection = r.manager.createConnection(null, server, config.connectTimeout());
            r.protectionDomain = r.connection.device().allocateProtectionDomain();
            boolean fast = config.remoteInvalidation() && r.connection.device().capabilities().fastRegistration();
            r.registrar = new Registrar(r.protectionDomain, counters, fast);
            int depth = config.maxCredits() + config.backchannelCredits();
            int sendDepth = (fast ? config.maxCredits() * (1 + PreparedCall.MAX_FAST_REGISTRATIONS) : config.maxCredits())
                    + config.backchannelCredits();
            r.completionQueue = r.connection.device().createCompletionQueue(sendDepth + depth);
            QueuePairAttributes attributes = QueuePairAttributes.builder(r.completionQueue, r.completionQueue)
                    .sendQueueDepth(sendDepth).receiveQueueDepth(depth).maxSendSge(1).maxReceiveSge(1).build();
            r.connection.createQueuePair(r.protectionDomain, attributes);
            r.receiveRing = ReceiveRing.create(r.registrar, depth, config.receiveInlineSize());
            r.receiveRing.postAll(r.connection.queuePair());
            return r;
        } catch (VerbsException | RuntimeException e) {
            Exception failed = r.closeAll();
            if (failed != null) {
                e.addSuppressed(failed);
            }
            throw e;
        }
    }

    /**
     * Registers the send slab once the server's receive size is known.
     *
     * @param slotCount send slots
     * @param slotSize bytes per slot
     * @return the slab's region, owned by these resources
     * @throws VerbsException when registration fails
     */
    MemoryRegion registerSendSlab(int slotCount, int slotSize) throws VerbsException {
        MemoryRegion region = registrar.register(ByteBuffer.allocateDirect(Math.multiplyExact(slotCount, slotSize)), Access.LOCAL_WRITE);
        sendSlab = region;
        return region;
    }

    ConnectionManager manager() {
        return manager;
    }

    Connection connection() {
        return connection;
    }

    QueuePair queuePair() {
        return connection.queuePair();
    }

    CompletionQueue completionQueue() {
        return completionQueue;
    }

    Registrar registrar() {
        return registrar;
    }

    ReceiveRing receiveRing() {
        return receiveRing;
    }

    /**
     * Releases everything, in reverse order, attempting every step. Releasing twice does nothing
     * more.
     *
     * @return null, or the first failure with later ones suppressed
     */
    Exception release() {
        return closeAll();
    }

    private Exception closeAll() {
        Exception failed = null;
        if (connection != null) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                failed = e;
            }
        }
        if (registrar != null) {
            failed = chain(failed, registrar.deregister(sendSlab));
            sendSlab = null;
            if (receiveRing != null) {
                failed = chain(failed, receiveRing.release(registrar));
                receiveRing = null;
            }
        }
        if (completionQueue != null) {
            try {
                completionQueue.close();
            } catch (VerbsException | RuntimeException e) {
                failed = chain(failed, e);
            }
        }
        if (protectionDomain != null) {
            try {
                protectionDomain.close();
            } catch (VerbsException | RuntimeException e) {
                failed = chain(failed, e);
            }
        }
        try {
            manager.close();
        } catch (RuntimeException e) {
            failed = chain(failed, e);
        }
        return failed;
    }

    private static Exception chain(Exception first, Exception next) {
        if (next == null) {
            return first;
        }
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
