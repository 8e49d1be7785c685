package org.rpcrdma4j.benchmarks.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A client and a server connected through a verbs provider, set up through the contract only.
 * Benchmark state: built in a JMH setup, closed in its teardown (connections, regions, queues,
 * domains, managers, in that order).
 */
final class LoopbackPair implements AutoCloseable {
    final ConnectionManager serverManager;
    final ConnectionManager clientManager;
    final End client = new End();
    final End server = new End();
    private ListeningEndpoint listener;

    /** One side's resources; owned by the pair. */
    static final class End {
        Connection connection;
        ProtectionDomain protectionDomain;
        CompletionQueue completionQueue;
        QueuePair queuePair;
        final List<MemoryRegion> regions = new ArrayList<>();

        void open(Connection on, int depth) throws VerbsException {
            connection = on;
            protectionDomain = on.device().allocateProtectionDomain();
            completionQueue = on.device().createCompletionQueue(depth * 2);
            queuePair = on.createQueuePair(protectionDomain, QueuePairAttributes.builder(completionQueue, completionQueue)
                    .sendQueueDepth(depth).receiveQueueDepth(depth).build());
        }

        MemoryRegion register(int size, int access) throws VerbsException {
            MemoryRegion region = protectionDomain.registerMemory(ByteBuffer.allocateDirect(size), access);
            regions.add(region);
            return region;
        }

        void close() throws VerbsException {
            if (connection != null) {
                connection.close();
            }
            for (MemoryRegion region : regions) {
                region.deregister();
            }
            if (completionQueue != null) {
                completionQueue.close();
            }
            if (protectionDomain != null) {
                protectionDomain.close();
            }
        }
    }

    LoopbackPair(VerbsProvider provider, int depth) throws Exception {
        serverManager = provider.openConnectionManager();
        clientManager = provider.openConnectionManager();
        try {
            listener = serverManager.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
            client.open(clientManager.createConnection(null, listener.localAddress(), Duration.ofSeconds(5)), depth);
            client.connection.connect(ByteBuffer.allocate(0));
            Connection[] request = new Connection[1];
            serverManager.awaitEvents(event -> {
                if (event.type() == ConnectionEventType.CONNECT_REQUEST) {
                    request[0] = event.connection();
                }
            }, 1, 5, TimeUnit.SECONDS);
            if (request[0] == null) {
                throw new IllegalStateException("no connect request");
            }
            server.open(request[0], depth);
            request[0].accept(ByteBuffer.allocate(0));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Waits for {@code n} completions with the contract's completion loop: poll; when empty, arm,
     * poll again (closing the race with arming), then sleep until notified. Fails on any error status.
     */
    static void awaitCompletions(CompletionQueue queue, WorkCompletion[] scratch, int n) throws VerbsException, InterruptedException {
        int got = 0;
        while (got < n) {
            int polled = poll(queue, scratch, n - got);
            if (polled == 0) {
                queue.requestNotification();
                polled = poll(queue, scratch, n - got);
                if (polled == 0 && !queue.awaitNotification(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no completion within 10 s");
                }
            }
            got += polled;
        }
    }

    private static int poll(CompletionQueue queue, WorkCompletion[] scratch, int most) throws VerbsException {
        int polled = queue.poll(scratch, Math.min(scratch.length, most));
        for (int i = 0; i < polled; i++) {
            if (!scratch[i].isSuccess()) {
                throw new IllegalStateException("benchmark work failed: " + scratch[i]);
            }
        }
        return polled;
    }

    static WorkCompletion[] completions(int n) {
        WorkCompletion[] completions = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            completions[i] = new WorkCompletion();
        }
        return completions;
    }

    @Override
    public void close() throws Exception {
        try {
            try {
                client.close();
            } finally {
                server.close();
            }
        } finally {
            if (listener != null) {
                listener.close();
            }
            clientManager.close();
            serverManager.close();
        }
    }
}
