package org.rpcrdma4j.server;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;

/**
 * An oncrpc4j transport that keeps what is sent through it, so tests can decode the
 * replies byte by byte. Not a mock: the real oncrpc4j call, reply and XDR classes run.
 */
public class CapturingTransport implements RpcTransport {

    /** What was sent, each a copy, in order. */
    public final List<ByteBuffer> sent = new CopyOnWriteArrayList<>();
    private final ReplyQueue replyQueue = new ReplyQueue();
    private final InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 700);
    private final InetSocketAddress local = new InetSocketAddress("192.0.2.1", 20049);

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ByteBuffer encoded = xdr.asBuffer().toByteBuffer();
        ByteBuffer copy = ByteBuffer.allocate(encoded.remaining());
        copy.put(encoded.duplicate()).flip();
        sent.add(copy);
        handler.completed(copy.remaining(), attachment);
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return local;
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return peer;
    }

    @Override
    public RpcTransport getPeerTransport() {
        return this;
    }

    @Override
    public void startTLS() {
        throw new IllegalStateException("no TLS on a capturing transport");
    }

    @Override
    public boolean isTLS() {
        return false;
    }
}
