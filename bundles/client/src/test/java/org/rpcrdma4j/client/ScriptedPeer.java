package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventHandler;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.loopback.FabricMode;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * A scripted RPC-over-RDMA server for the client's tests, written directly on the verbs contract
 * over a loopback fabric (deterministic; or threaded, where it waits for its own work requests): it accepts one connection, hands the test every message
 * the client sent (as bytes), pulls chunk data with RDMA READ, pushes with RDMA WRITE and answers
 * with whatever SEND the test scripts. It checks nothing by itself beyond the verbs results: the
 * tests assert on what it captured.
 *
 * <p>Threading: one thread at a time (the test thread, or one serving thread). Ownership: the test owns it and closes it; it counts its
 * own registrations so the test can assert it released them too.
 */
final class ScriptedPeer implements AutoCloseable {
    private final LoopbackFabric fabric;
    private final int receiveSize;
    private final int receives;
    private final ConnectionManager manager;
    private final ListeningEndpoint listener;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final WorkCompletion[] completions = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
    private Connection connection;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue receiveCq;
    private MemoryRegion receiveSlab;
    private byte[] clientPrivateData;
    private int unanswered;
    private int maxUnanswered;
    private int grant = 1;
    private long nextId = 1;

    ScriptedPeer(LoopbackFabric fabric, int receiveSize, int receives) throws VerbsException {
        this.fabric = fabric;
        this.receiveSize = receiveSize;
        this.receives = receives;
        this.manager = fabric.provider().openConnectionManager();
        this.listener = manager.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /**
     * Takes the pending connect request (waiting for it on a threaded fabric), posts the receives
     * and accepts with the given private data.
     */
    void accept(ByteBuffer privateData) throws VerbsException, InterruptedException {
        Connection[] request = new Connection[1];
        ConnectionEventHandler handler = event -> {
            if (event.type() == ConnectionEventType.CONNECT_REQUEST) {
                request[0] = event.connection();
                ByteBuffer data = event.privateData();
                clientPrivateData = new byte[data.remaining()];
                data.duplicate().get(clientPrivateData);
            }
        };
        manager.pollEvents(handler, 4);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (request[0] == null && fabric.mode() == FabricMode.THREADED) {
            assertTrue(System.nanoTime() - deadline < 0, "a connect request arrived");
            manager.awaitEvents(handler, 4, 10, TimeUnit.MILLISECONDS);
        }
        assertNotNull(request[0], "no connect request");
        connection = request[0];
        pd = connection.device().allocateProtectionDomain();
        sendCq = connection.device().createCompletionQueue(64);
        receiveCq = connection.device().createCompletionQueue(receives);
        connection.createQueuePair(pd, QueuePairAttributes.builder(sendCq, receiveCq).sendQueueDepth(32).receiveQueueDepth(receives)
                .initiatorDepth(16).responderResources(16).build());
        receiveSlab = pd.registerMemory(ByteBuffer.allocateDirect(receives * receiveSize), Access.LOCAL_WRITE);
        for (int i = 0; i < receives; i++) {
            repost(i);
        }
        connection.accept(privateData);
    }

    /** Rejects the pending connect request. */
    void reject() throws VerbsException {
        manager.pollEvents(event -> {
            if (event.type() == ConnectionEventType.CONNECT_REQUEST) {
                try {
                    event.connection().reject(ByteBuffer.allocate(0));
                } catch (VerbsException e) {
                    throw new IllegalStateException(e);
                }
                event.connection().close();
            }
        }, 4);
    }

    /** @return the private data of the client's connect request */
    byte[] clientPrivateData() {
        return clientPrivateData;
    }

    /**
     * Takes the next message the client sent, reposting its receive.
     *
     * @return its bytes, or null when none arrived
     */
    ByteBuffer takeMessage() throws VerbsException {
        int n = receiveCq.poll(completions, 1);
        if (n == 0) {
            return null;
        }
        WorkCompletion wc = completions[0];
        assertTrue(wc.isSuccess(), () -> "receive failed: " + wc);
        int index = (int) wc.id();
        ByteBuffer copy = ByteBuffer.allocate(wc.byteCount());
        copy.put(0, receiveSlab.buffer(), index * receiveSize, wc.byteCount());
        repost(index);
        unanswered++;
        maxUnanswered = Math.max(maxUnanswered, unanswered);
        return copy;
    }

    /** Takes every message that arrived. */
    List<ByteBuffer> takeMessages() throws VerbsException {
        List<ByteBuffer> messages = new ArrayList<>();
        ByteBuffer m;
        while ((m = takeMessage()) != null) {
            messages.add(m);
        }
        return messages;
    }

    /** Pulls {@code length} bytes of the client's memory with one RDMA READ. */
    byte[] read(int handle, int length, long offset) throws VerbsException {
        MemoryRegion sink = register(ByteBuffer.allocateDirect(Math.max(1, length)), Access.LOCAL_WRITE);
        try {
            SendWorkRequest wr = new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, nextId++, SendWorkRequest.SIGNALED)
                    .addSge(sink, 0, length).remote(offset, handle);
            WorkCompletion wc = execute(wr);
            assertEquals(CompletionStatus.SUCCESS, wc.status(), "RDMA READ of the client's chunk");
            byte[] data = new byte[length];
            sink.buffer().get(0, data);
            return data;
        } finally {
            deregister(sink);
        }
    }

    /** Pushes bytes into the client's memory with one RDMA WRITE, returning its completion status. */
    CompletionStatus write(int handle, long offset, byte[] data) throws VerbsException {
        MemoryRegion source = register(ByteBuffer.allocateDirect(Math.max(1, data.length)), 0);
        try {
            source.buffer().put(0, data);
            SendWorkRequest wr = new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, nextId++, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, data.length).remote(offset, handle);
            return execute(wr).status();
        } finally {
            deregister(source);
        }
    }

    /**
     * Sends one reply message.
     *
     * @param message header and body
     * @param credits the grant the header carries (recorded to check the client honours it)
     */
    void send(ByteBuffer message, int credits) throws VerbsException {
        send(message, credits, SendOpcode.SEND, 0);
    }

    /** Sends one reply message with Send With Invalidate of one of the client's keys. */
    void sendWithInvalidate(ByteBuffer message, int credits, int key) throws VerbsException {
        send(message, credits, SendOpcode.SEND_WITH_INV, key);
    }

    private void send(ByteBuffer message, int credits, SendOpcode opcode, int key) throws VerbsException {
        MemoryRegion source = register(ByteBuffer.allocateDirect(message.remaining()), 0);
        try {
            source.buffer().put(0, message, message.position(), message.remaining());
            SendWorkRequest wr = new SendWorkRequest(1).reset(opcode, nextId++, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, message.remaining()).invalidateKey(key);
            assertEquals(CompletionStatus.SUCCESS, execute(wr).status(), "SEND of the reply");
            unanswered = Math.max(0, unanswered - 1);
            grant = credits;
        } finally {
            deregister(source);
        }
    }

    /** @return the most calls the peer held unanswered at once */
    int maxUnanswered() {
        return maxUnanswered;
    }

    /** @return calls received and not yet answered */
    int unanswered() {
        return unanswered;
    }

    /** @return the last grant sent */
    int lastGrant() {
        return grant;
    }

    /** Disconnects the client. */
    void disconnect() throws VerbsException {
        connection.disconnect();
    }

    /** @return the connection (for fault injection) */
    Connection connection() {
        return connection;
    }

    /** @return the peer's registrations still live besides its receive slab (each operation releases its own) */
    int liveRegistrations() {
        return regions.size();
    }

    @Override
    public void close() throws VerbsException {
        if (connection != null) {
            connection.close();
        }
        while (!regions.isEmpty()) {
            deregister(regions.get(regions.size() - 1));
        }
        if (receiveSlab != null) {
            receiveSlab.deregister();
        }
        if (sendCq != null) {
            sendCq.close();
            receiveCq.close();
            pd.close();
        }
        listener.close();
        manager.close();
    }

    private WorkCompletion execute(SendWorkRequest wr) throws VerbsException {
        connection.queuePair().postSend(wr);
        if (fabric.mode() == FabricMode.DETERMINISTIC) {
            fabric.runUntilIdle();
            assertEquals(1, sendCq.poll(completions, 1), "the peer's work request completed");
            return completions[0];
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sendCq.poll(completions, 1) == 0) {
            assertTrue(System.nanoTime() - deadline < 0, "the fabric thread executed the peer's work request");
            Thread.onSpinWait();
        }
        return completions[0];
    }

    private void repost(int index) throws VerbsException {
        connection.queuePair().postReceive(new ReceiveWorkRequest(1).id(index).buffer(receiveSlab, index * receiveSize, receiveSize));
    }

    private MemoryRegion register(ByteBuffer buffer, int access) throws VerbsException {
        MemoryRegion region = pd.registerMemory(buffer, access);
        regions.add(region);
        return region;
    }

    private void deregister(MemoryRegion region) throws VerbsException {
        regions.remove(region);
        region.deregister();
    }
}
