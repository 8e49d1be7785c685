package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.RpcRdmaCm;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * The embedded harness of the client's tests: a deterministic loopback fabric, a
 * {@link ScriptedPeer} listening on it and a client connected to the peer, all driven by the test
 * thread. {@link #close()} checks that neither side leaked a registration or a queue pair (the
 * client's counters, the peer's list, and the loopback fabric's own counts).
 */
final class Harness implements AutoCloseable {
    /** The peer's receive buffer size. */
    static final int PEER_RECEIVE_SIZE = 4096;
    /** The peer's receives. */
    static final int PEER_RECEIVES = 32;

    final LoopbackFabric fabric;
    final ScriptedPeer peer;
    final RpcRdmaClient client;

    private Harness(LoopbackFabric fabric, ClientConfig config, ByteBuffer acceptPrivateData) throws VerbsException, InterruptedException {
        this.fabric = fabric;
        peer = new ScriptedPeer(fabric, PEER_RECEIVE_SIZE, PEER_RECEIVES);
        client = RpcRdmaClient.start(fabric.provider(), peer.address(), config);
        peer.accept(acceptPrivateData);
        settle();
    }

    /** A connected harness whose peer announces 4096 bytes each way. */
    static Harness connected(ClientConfig config) throws VerbsException, InterruptedException {
        return connected(LoopbackFabric.deterministic(), config);
    }

    /** A connected harness over a given deterministic fabric (e.g. other device capabilities); the harness closes it. */
    static Harness connected(LoopbackFabric fabric, ClientConfig config) throws VerbsException, InterruptedException {
        Harness h = new Harness(fabric, config, serverPrivateData(PEER_RECEIVE_SIZE, PEER_RECEIVE_SIZE, false));
        assertTrue(h.client.isConnected(), "connected");
        return h;
    }

    /** A harness whose peer accepts with the given private data. */
    static Harness accepting(ClientConfig config, ByteBuffer acceptPrivateData) throws VerbsException, InterruptedException {
        return new Harness(LoopbackFabric.deterministic(), config, acceptPrivateData);
    }

    /** RFC 8797 private data as a server would send it. */
    static ByteBuffer serverPrivateData(int sendSize, int receiveSize, boolean remoteInvalidation) {
        ByteBuffer data = ByteBuffer.allocate(RpcRdmaCm.PRIVATE_DATA_BYTES);
        new ConnectionPrivateData(sendSize, receiveSize, remoteInvalidation).encode(data, 0);
        return data;
    }

    /** Runs fabric and client until neither has anything left to do; returns the client's work. */
    int settle() {
        int total = 0;
        int work;
        do {
            fabric.runUntilIdle();
            work = client.doWork();
            total += work;
        } while (work > 0);
        return total;
    }

    /** Sends a call and lets it reach the peer. */
    CompletableFuture<RpcReply> call(CallRequest request) {
        CompletableFuture<RpcReply> f = client.call(request);
        settle();
        return f;
    }

    /** Sends a reply from the peer and lets the client process it. */
    void reply(ByteBuffer message, int credits) throws VerbsException {
        peer.send(message, credits);
        settle();
    }

    /** The one message the peer received since the last take. */
    ByteBuffer takeOne() throws VerbsException {
        var messages = peer.takeMessages();
        assertEquals(1, messages.size(), "messages the peer received");
        return messages.get(0);
    }

    @Override
    public void close() throws VerbsException {
        try {
            client.close();
            assertEquals(0, client.statistics().liveRegistrations(), "client registrations left: " + client.statistics());
            assertEquals(0, peer.liveRegistrations(), "peer registrations left");
            peer.close();
            assertEquals(0, fabric.registrationCount(), "the fabric still holds registrations");
            assertEquals(0, fabric.queuePairCount(), "the fabric still holds queue pairs");
        } finally {
            peer.close();
            fabric.close();
        }
    }
}
