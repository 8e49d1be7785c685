package org.rpcrdma4j.verbs.disni;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ListeningEndpoint;

/**
 * A connection event as the manager took it from DiSNI (already acknowledged by libdisni): its
 * type, connection, status and a copy of its private data.
 */
final class DisniConnectionEvent implements ConnectionEvent {
    private final ConnectionEventType type;
    private final DisniConnection connection;
    private final ListeningEndpoint listeningEndpoint;
    private final byte[] privateData;
    private final InetSocketAddress peerAddress;
    private final int status;

    DisniConnectionEvent(ConnectionEventType type, DisniConnection connection, ListeningEndpoint listeningEndpoint, byte[] privateData,
            InetSocketAddress peerAddress, int status) {
        this.type = type;
        this.connection = connection;
        this.listeningEndpoint = listeningEndpoint;
        this.privateData = privateData;
        this.peerAddress = peerAddress;
        this.status = status;
    }

    @Override
    public ConnectionEventType type() {
        return type;
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public ListeningEndpoint listeningEndpoint() {
        return listeningEndpoint;
    }

    @Override
    public ByteBuffer privateData() {
        return ByteBuffer.wrap(privateData).asReadOnlyBuffer();
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public String toString() {
        return "DisniConnectionEvent[" + type + " status=" + status + " privateData=" + privateData.length + "B]";
    }
}
