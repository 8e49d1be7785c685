package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One RDMA connection (an rdma_cm_id with its queue pair), active (from
 * {@link ConnectionManager#createConnection}) or passive (from a
 * {@link ConnectionEventType#CONNECT_REQUEST}).
 *
 * <p>Active side: create the queue pair, {@link #connect}, wait for ESTABLISHED (or REJECTED).
 * Passive side: create the queue pair, post receives, {@link #accept} (or {@link #reject}), wait
 * for ESTABLISHED. Either side: {@link #disconnect}, then {@link #close}.
 *
 * <p>Private data: the bytes from the buffer's position to its limit are copied; the buffer is
 * not changed. At most {@link #MAX_CONNECT_PRIVATE_DATA}, {@link #MAX_ACCEPT_PRIVATE_DATA} or
 * {@link #MAX_REJECT_PRIVATE_DATA} bytes (InfiniBand CM limits; others allow more). The peer may
 * receive it zero-padded to that size (see {@link ConnectionEvent#privateData()}).
 *
 * <p>Ownership: the caller that created or received it owns it and MUST close it on every path
 * (a connection is also closed with its manager); closing destroys the queue pair, so every memory
 * region its requests name MUST stay registered until then. Threading: safe from any thread.
 */
public interface Connection extends AutoCloseable {
    /** Most private-data bytes in a connect request. */
    int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Most private-data bytes in an accept. */
    int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Most private-data bytes in a reject. */
    int MAX_REJECT_PRIVATE_DATA = 148;

    /** @return the device the connection's route runs through */
    VerbsDevice device();

    /** @return the local address */
    InetSocketAddress localAddress();

    /** @return the peer's address (the RPC caller's, for export checks) */
    InetSocketAddress remoteAddress();

    /**
     * Creates the connection's reliable-connected queue pair (rdma_create_qp).
     *
     * @param protectionDomain a domain on {@link #device()}
     * @param attributes completion queues (on the same device) and limits
     * @return the queue pair, in {@link QueuePairState#INIT}, owned by this connection
     * @throws VerbsException EINVAL when one exists already, a limit exceeds the device's, or a
     *         resource is of another device; EBADF after close
     */
    QueuePair createQueuePair(ProtectionDomain protectionDomain, QueuePairAttributes attributes) throws VerbsException;

    /** @return the queue pair, or null before {@link #createQueuePair} */
    QueuePair queuePair();

    /**
     * Active side: sends the connect request (rdma_connect). Completion arrives as an event.
     *
     * @param privateData the private data to send, e.g. RFC 8797 connection parameters
     * @throws VerbsException EINVAL without a queue pair, on a passive connection, when already
     *         connecting, or with too much private data
     */
    void connect(ByteBuffer privateData) throws VerbsException;

    /**
     * Passive side: accepts the request (rdma_accept); ESTABLISHED follows on both sides.
     *
     * @param privateData the private data to answer with
     * @throws VerbsException EINVAL without a queue pair, on an active connection, when not a
     *         pending request, or with too much private data; ENOTCONN when the peer went away
     */
    void accept(ByteBuffer privateData) throws VerbsException;

    /**
     * Passive side: rejects the request (rdma_reject); the peer sees REJECTED. The caller then
     * closes this connection.
     *
     * @param privateData the private data to answer with
     * @throws VerbsException EINVAL when not a pending request or with too much private data
     */
    void reject(ByteBuffer privateData) throws VerbsException;

    /**
     * Disconnects (rdma_disconnect): both queue pairs go to the error state, flushing every
     * outstanding work request, and both sides see DISCONNECTED. Does nothing when not connected.
     *
     * @throws VerbsException when the connection manager refuses
     */
    void disconnect() throws VerbsException;

    /**
     * Attaches the caller's context (rdma_cm_id.context), e.g. the transport's connection state.
     *
     * @param attachment the context, or null
     */
    void attach(Object attachment);

    /** @return the attached context, or null */
    Object attachment();

    /**
     * Disconnects if needed, destroys the queue pair and the id. Closing twice does nothing.
     * Completions already queued stay on the completion queues and MUST still be polled.
     */
    @Override
    void close();
}
