package org.rpcrdma4j.verbs.conformance;

import java.nio.ByteBuffer;
import java.time.Duration;

import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.ListeningEndpoint;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A server and a client connected through the provider under test, each with its own connection
 * manager and {@link Side}. Closing releases everything in order.
 */
public final class ConnectedPair implements AutoCloseable {
    /** The client's connect private data. */
    public static final byte[] CONNECT_DATA = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 0, 0, 0, 1};
    /** The server's accept private data. */
    public static final byte[] ACCEPT_DATA = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 0, 0, 0, 2, 0, 3};

    final ConnectionManager serverManager;
    final ConnectionManager clientManager;
    final Harness.Events serverEvents;
    final Harness.Events clientEvents;
    final Side server = new Side();
    final Side client = new Side();
    ListeningEndpoint listener;
    SeenEvent connectRequest;
    SeenEvent clientEstablished;

    private ConnectedPair(ConformanceFixture fixture) throws VerbsException {
        serverManager = fixture.provider().openConnectionManager();
        clientManager = fixture.provider().openConnectionManager();
        serverEvents = new Harness.Events(serverManager);
        clientEvents = new Harness.Events(clientManager);
    }

    /** Listens, connects, accepts and waits for ESTABLISHED on both sides. */
    public static ConnectedPair open(ConformanceFixture fixture, PairOptions options) throws Exception {
        ConnectedPair pair = new ConnectedPair(fixture);
        try {
            pair.request(fixture, options);
            pair.server.open(pair.connectRequest.connection(), options);
            pair.connectRequest.connection().accept(ByteBuffer.wrap(ACCEPT_DATA));
            pair.clientEstablished = pair.clientEvents.await(ConnectionEventType.ESTABLISHED);
            pair.serverEvents.await(ConnectionEventType.ESTABLISHED);
            return pair;
        } catch (Exception | Error e) {
            pair.close();
            throw e;
        }
    }

    /** Listens, connects, and waits for the server's CONNECT_REQUEST (not yet answered). */
    public static ConnectedPair requested(ConformanceFixture fixture, PairOptions options) throws Exception {
        ConnectedPair pair = new ConnectedPair(fixture);
        try {
            pair.request(fixture, options);
            return pair;
        } catch (Exception | Error e) {
            pair.close();
            throw e;
        }
    }

    /** @return the server side */
    public Side server() {
        return server;
    }

    /** @return the client side */
    public Side client() {
        return client;
    }

    /** @return the server manager's events */
    public Harness.Events serverEvents() {
        return serverEvents;
    }

    /** @return the client manager's events */
    public Harness.Events clientEvents() {
        return clientEvents;
    }

    /** @return the server's CONNECT_REQUEST event */
    public SeenEvent connectRequest() {
        return connectRequest;
    }

    private void request(ConformanceFixture fixture, PairOptions options) throws Exception {
        listener = serverManager.listen(fixture.listenAddress(), 4);
        client.open(clientManager.createConnection(null, listener.localAddress(), Duration.ofSeconds(5)), options);
        client.connection().connect(ByteBuffer.wrap(CONNECT_DATA));
        connectRequest = serverEvents.await(ConnectionEventType.CONNECT_REQUEST);
    }

    @Override
    public void close() throws Exception {
        try {
            client.close();
        } finally {
            try {
                if (connectRequest != null && server.connection() == null) {
                    connectRequest.connection().close();
                }
                server.close();
            } finally {
                if (listener != null) {
                    listener.close();
                }
                clientManager.close();
                serverManager.close();
            }
        }
    }
}
