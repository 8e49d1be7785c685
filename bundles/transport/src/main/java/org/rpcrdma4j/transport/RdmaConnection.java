package org.rpcrdma4j.transport;

import java.net.InetSocketAddress;

/**
 * RdmaConnection - what the RPC layer may know about one accepted RPC-over-RDMA connection.
 *
 * <p>Threading: every method is safe from any thread.
 */
public interface RdmaConnection {
    /** @return the client's address (for export checks: the real peer, never a placeholder) */
    InetSocketAddress remoteAddress();

    /** @return the local address the client connected to */
    InetSocketAddress localAddress();

    /** @return true until the connection starts closing */
    boolean isOpen();

    /**
     * @return the largest message this side may send inline: the client's receive size from its
     *         RFC 8797 private data, or 1024 when it sent none (RFC 8166 §3.3.3)
     */
    int replySizeLimit();

    /** @return the largest message the client may send: our inline receive threshold */
    int receiveSizeLimit();

    /** @return whether the client accepts Send With Invalidate (RFC 8797 flag bit 0) */
    boolean remoteInvalidationAllowed();

    /** @return the credits this side grants in every reply */
    int grantedCredits();

    /** @return the backward direction of this connection (RFC 8167), for calls to the client */
    Backchannel backchannel();

    /** @return this connection's counters */
    TransportStatistics statistics();

    /**
     * @return this connection's reply latency so far: how long its replies took from the handling
     *         of their call's receive completion to the post of their SEND, as bucket bounds (see
     *         {@link ReplyLatency}); {@link ReplyLatency#EMPTY} where a connection does not measure it
     */
    default ReplyLatency replyLatency() {
        return ReplyLatency.EMPTY;
    }

    /**
     * close() - start an orderly close: the connection is disconnected, outstanding work flushes,
     * calls in progress are dropped and their resources returned. Returns at once.
     */
    void close();
}
