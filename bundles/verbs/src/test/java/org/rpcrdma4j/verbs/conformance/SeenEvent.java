package org.rpcrdma4j.verbs.conformance;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEvent;
import org.rpcrdma4j.verbs.ConnectionEventType;

/**
 * A copy of a connection event, kept after the callback (events themselves are valid only during it).
 *
 * @param type the event type
 * @param connection the connection
 * @param privateData a copy of the private data
 * @param peerAddress the peer's address
 * @param status the status
 */
public record SeenEvent(ConnectionEventType type, Connection connection, byte[] privateData, InetSocketAddress peerAddress, int status) {
    static SeenEvent copyOf(ConnectionEvent event) {
        ByteBuffer data = event.privateData();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return new SeenEvent(event.type(), event.connection(), bytes, event.peerAddress(), event.status());
    }
}
