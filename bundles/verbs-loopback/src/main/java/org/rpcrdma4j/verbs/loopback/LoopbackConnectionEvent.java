package org.rpcrdma4j.verbs.loopback;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ListeningEndpoint;

/** A queued connection event; connection management is not the data path, so one object per event. */
final class LoopbackConnectionEvent implements ConnectionEvent {
    private static final byte[] NONE = new byte[0];

    private final ConnectionEventType type;
    private final Connection connection;
    private final ListeningEndpoint listeningEndpoint;
    private final byte[] privateData;
    private final InetSocketAddress peerAddress;
    private final int status;

    LoopbackConnectionEvent(ConnectionEventType type, Connection connection, ListeningEndpoint listeningEndpoint, byte[] privateData,
            InetSocketAddress peerAddress, int status) {
        this.type = type;
        this.connection = connection;
        this.listeningEndpoint = listeningEndpoint;
        this.privateData = privateData != null ? privateData : NONE;
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
        return "ConnectionEvent[" + type + " peer=" + peerAddress + " privateData=" + privateData.length + " status=" + status + "]";
    }
}
