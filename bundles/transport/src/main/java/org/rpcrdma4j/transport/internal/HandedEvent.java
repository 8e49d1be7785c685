package org.rpcrdma4j.transport.internal;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;

/** HandedEvent - what the acceptor hands a loop: a connect request (with the peer's private data) or an event. */
final class HandedEvent {
    final ConnectionEventType type;
    final Connection connection;
    final ConnectionState state;
    final ConnectionPrivateData peer;

    HandedEvent(ConnectionEventType type, Connection connection, ConnectionState state, ByteBuffer privateData) {
        this.type = type;
        this.connection = connection;
        this.state = state;
        this.peer = privateData == null ? null
                : ConnectionPrivateData.decode(privateData, privateData.position(), privateData.remaining()).orElse(null);
    }
}
