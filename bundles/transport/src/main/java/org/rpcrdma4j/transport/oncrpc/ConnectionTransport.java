package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * ConnectionTransport - what every oncrpc4j {@link RpcTransport} of one RDMA connection answers
 * alike: the connection's real addresses (nfs4j checks exports against the remote one), whether
 * it is open, and no TLS. Subclasses decide what {@code send} does; replies to calls sent from
 * this side come back through the connection's back channel and its reply queue.
 */
abstract class ConnectionTransport implements RpcTransport {
    private final RdmaConnection connection;

    ConnectionTransport(RdmaConnection connection) {
        this.connection = connection;
    }

    final RdmaConnection connection() {
        return connection;
    }

    /** @return the reply queue of the connection's back channel, where backward calls wait for their replies */
    @Override
    public abstract ReplyQueue getReplyQueue();

    @Override
    public final boolean isOpen() {
        return connection.isOpen();
    }

    @Override
    public final InetSocketAddress getLocalSocketAddress() {
        return connection.localAddress();
    }

    @Override
    public final InetSocketAddress getRemoteSocketAddress() {
        return connection.remoteAddress();
    }

    /** @return the connection's back channel (RFC 8167): calls from this server to the client */
    @Override
    public abstract RpcTransport getPeerTransport();

    @Override
    public final void startTLS() {
        throw new IllegalStateException("RPC-over-RDMA has no TLS (RFC 9289 is for TCP)");
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}
