package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * ConnectionTransport - what every oncrpc4j {@link RpcTransport} of one RDMA connection answers
 * alike: the connection's real addresses (nfs4j checks exports against the remote one), whether
 * it is open, the host's reply queue, and no TLS. Subclasses decide what {@code send} does.
 */
abstract class ConnectionTransport implements RpcTransport {
    private final RdmaConnection connection;
    private final ReplyQueue replyQueue;

    ConnectionTransport(RdmaConnection connection, ReplyQueue replyQueue) {
        this.connection = connection;
        this.replyQueue = replyQueue;
    }

    final RdmaConnection connection() {
        return connection;
    }

    @Override
    public final ReplyQueue getReplyQueue() {
        return replyQueue;
    }

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

    @Override
    public RpcTransport getPeerTransport() {
        return new BackchannelTransport(connection, replyQueue);
    }

    @Override
    public final void startTLS() {
        throw new IllegalStateException("RPC-over-RDMA has no TLS (RFC 9289 is for TCP)");
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}
