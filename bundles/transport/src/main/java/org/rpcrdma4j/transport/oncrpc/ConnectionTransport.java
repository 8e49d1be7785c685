package org.rpcrdma4j.transport.oncrpc;

import java.net.InetSocketAddress;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
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

    /**
     * startTLS() - oncrpc4j calls this while decoding a call whose credential is AUTH_TLS (RFC 9289's
     * probe for RPC-with-TLS). RPC-over-RDMA has no TLS: the call is denied AUTH_ERROR /
     * AUTH_BADCRED, which tells the client that this transport does not do TLS, as a server that
     * does not support RPC-with-TLS answers (before, the call was dropped with an ERROR and a stack
     * trace per call).
     */
    @Override
    public final void startTLS() throws RpcAuthException {
        throw new RpcAuthException("RPC-over-RDMA has no TLS (RFC 9289 is for TCP): AUTH_TLS refused",
                new RpcAuthError(RpcAuthStat.AUTH_BADCRED));
    }

    @Override
    public final boolean isTLS() {
        return false;
    }
}
