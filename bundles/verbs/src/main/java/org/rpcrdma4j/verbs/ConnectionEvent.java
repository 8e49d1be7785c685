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
     * The private data of the peer's connect, accept or reject.
     *
     * <p>Padding: the InfiniBand CM (also used by RoCE and rxe) carries private data in fields of
     * fixed size and delivers the whole field: the bytes the peer sent followed by zeros up to
     * {@link Connection#MAX_CONNECT_PRIVATE_DATA} (connect request),
     * {@link Connection#MAX_ACCEPT_PRIVATE_DATA} (accept) or
     * {@link Connection#MAX_REJECT_PRIVATE_DATA} (reject). iWARP and the loopback deliver the
     * bytes sent, exactly. So a consumer MUST NOT take the length for the length the peer sent: its
     * format MUST carry its own length or tolerate trailing zeros (RFC 8797's 8-byte message does).
     *
     * @return the private data as a read-only buffer from position to limit (empty when none);
     *         valid only during the callback
     */
    ByteBuffer privateData();

    /** @return the peer's address */
    InetSocketAddress peerAddress();

    /** @return 0, or the status of a rejected or failed connection (errno or the CM's reason) */
    int status();
}
