package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A connection event as a provider queued it for {@link ConnectionManager#awaitEvents}: an immutable
 * value holding the type, the connection, the listening endpoint of a connect request, the peer's
 * address, the status and a private copy of the private data (the provider's own event, e.g.
 * librdmacm's, is acknowledged before this is handed out).
 *
 * <p>One class for every provider: connection management is not the data path, so one object per
 * event is fine, and a consumer sees the same {@link #toString()} whichever fabric it runs on.
 */
public final class QueuedConnectionEvent implements ConnectionEvent {
    private static final byte[] NO_PRIVATE_DATA = new byte[0];

    private final ConnectionEventType type;
    private final Connection connection;
    private final ListeningEndpoint listeningEndpoint;
    private final byte[] privateData;
    private final InetSocketAddress peerAddress;
    private final int status;

    /**
     * @param type              the kind of event
     * @param connection        the connection it is about (for a connect request, the new passive one)
     * @param listeningEndpoint for a connect request the endpoint that received it, else null
     * @param privateData       the peer's private data, owned by this event from now on; null for none
     * @param peerAddress       the peer's address, null when the provider does not know it
     * @param status            0, or the errno/CM reason of a rejected or failed connection
     */
    public QueuedConnectionEvent(ConnectionEventType type, Connection connection, ListeningEndpoint listeningEndpoint,
            byte[] privateData, InetSocketAddress peerAddress, int status) {
        if (type == null) {
            throw new IllegalArgumentException("a connection event needs a type");
        }
        this.type = type;
        this.connection = connection;
        this.listeningEndpoint = listeningEndpoint;
        this.privateData = privateData != null ? privateData : NO_PRIVATE_DATA;
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
        return "ConnectionEvent[" + type + " peer=" + peerAddress + " privateData=" + privateData.length + "B status=" + status + "]";
    }
}
