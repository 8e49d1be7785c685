package org.rpcrdma4j.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * One side of a test connection: its domain, one completion queue for both queues, the queue pair,
 * and every region the test registered. {@link #close()} releases them in the order verbs need:
 * connection (and queue pair), regions, completion queue, domain.
 */
public final class Side implements AutoCloseable {
    private final List<AutoCloseable> regions = new ArrayList<>();
    private Connection connection;
    private ProtectionDomain protectionDomain;
    private CompletionQueue completionQueue;
    private QueuePair queuePair;

    /** Creates the domain, completion queue and queue pair on the connection's device. */
    public void open(Connection onConnection, PairOptions options) throws VerbsException {
        this.connection = onConnection;
        protectionDomain = onConnection.device().allocateProtectionDomain();
        completionQueue = onConnection.device().createCompletionQueue(options.completionQueueCapacity());
        QueuePairAttributes attributes = QueuePairAttributes.builder(completionQueue, completionQueue)
                .sendQueueDepth(options.sendQueueDepth())
                .receiveQueueDepth(options.receiveQueueDepth())
                .maxSendSge(options.maxSge())
                .maxReceiveSge(options.maxSge())
                .maxInlineData(options.maxInlineData())
                .rnrRetryCount(options.rnrRetryCount())
                .build();
        queuePair = onConnection.createQueuePair(protectionDomain, attributes);
    }

    /** @return the connection */
    public Connection connection() {
        return connection;
    }

    /** @return the protection domain */
    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /** @return the completion queue of both queues */
    public CompletionQueue completionQueue() {
        return completionQueue;
    }

    /** @return the queue pair */
    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * Registers a new direct buffer, released with this side.
     *
     * @param size the buffer size
     * @param access the access flags
     * @return the region
     */
    public MemoryRegion register(int size, int access) throws VerbsException {
        MemoryRegion region = protectionDomain.registerMemory(ByteBuffer.allocateDirect(size), access);
        regions.add(region);
        return region;
    }

    /** Keeps a resource (e.g. a fast-registration region) to close with this side. */
    public <T extends AutoCloseable> T own(T resource) {
        regions.add(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        if (connection != null) {
            connection.close();
        }
        for (AutoCloseable region : regions) {
            region.close();
        }
        regions.clear();
        if (completionQueue != null) {
            completionQueue.close();
        }
        if (protectionDomain != null) {
            protectionDomain.close();
        }
    }
}
