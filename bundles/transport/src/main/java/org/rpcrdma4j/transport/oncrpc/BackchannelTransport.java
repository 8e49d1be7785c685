package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.channels.CompletionHandler;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * BackchannelTransport - what {@code getPeerTransport()} gives for an RDMA connection: the
 * reverse direction, for calls from the server to the client (NFSv4.1 callbacks). The RFC 8167
 * backchannel is not implemented yet, so every send fails at once with an exception saying so,
 * and {@link #isOpen()} follows the connection; a program then falls back as it would for a
 * client without a backchannel.
 */
final class BackchannelTransport extends ConnectionTransport {
    BackchannelTransport(RdmaConnection connection, ReplyQueue replyQueue) {
        super(connection, replyQueue);
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        handler.failed(new IOException("RPC-over-RDMA backchannel (RFC 8167) calls to " + connection().remoteAddress()
                + " are not supported"), attachment);
    }

    @Override
    public RpcTransport getPeerTransport() {
        return this;
    }

    @Override
    public String toString() {
        return "rdma-backchannel[" + connection().remoteAddress() + "]";
    }
}
