package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A connection-manager event, valid only during
 * {@link ConnectionEventHandler#onConnectionEvent}: the provider acknowledges it (rdma_ack_cm_event)
 * when the handler returns and MAY reuse the object. Handlers MUST copy what they keep.
 */
public interface ConnectionEvent {
    /** @return the kind of event */
    ConnectionEventType type();

    /**
     * @return the connection the event is about; for {@link ConnectionEventType#CONNECT_REQUEST}
     *         a new passive connection now owned by the handler
     */
    Connection connection();

    /** @return for a connect request, the endpoint that received it; otherwise null */
    ListeningEndpoint listeningEndpoint();

    /**
     * @return the private data of the peer's connect, accept or reject as a read-only buffer from
     *         position to limit (empty when none); valid only during the callback
     */
    ByteBuffer privateData();

    /** @return the peer's address */
    InetSocketAddress peerAddress();

    /** @return 0, or the status of a rejected or failed connection (errno or the CM's reason) */
    int status();
}
