package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.ScheduledExecutorService;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * BackchannelTransport - what {@code getPeerTransport()} gives for an RDMA connection: the
 * backward direction (RFC 8167), for RPC calls from this server to the client on the same
 * connection (NFSv4.1 callbacks). An oncrpc4j {@code RpcCall} made on it works as over TCP:
 * {@link #send} queues the call on the connection's {@link Backchannel} (inline RDMA_MSG,
 * within the client's backward credits), and the reply comes back through
 * {@link #getReplyQueue()}, this connection's own {@link BackchannelReplyQueue}, timeouts
 * included.
 *
 * <p>A call the back channel refuses fails its handler at once with an {@link IOException}
 * saying why (no back channel configured, connection closed, larger than the client's receive
 * size, too many waiting). One per connection: every {@code getPeerTransport()} of the
 * connection's calls returns the same one. Threading: any thread.
 */
final class BackchannelTransport extends ConnectionTransport {
    private final BackchannelReplyQueue replies;

    private BackchannelTransport(RdmaConnection connection, BackchannelReplyQueue replies) {
        super(connection);
        this.replies = replies;
        replies.bind(this);
    }

    /** create() - the back channel of {@code connection}, its timeouts and completions run by {@code scheduler}. */
    static BackchannelTransport create(RdmaConnection connection, ScheduledExecutorService scheduler) {
        return new BackchannelTransport(connection, new BackchannelReplyQueue(connection, scheduler));
    }

    BackchannelReplyQueue replies() {
        return replies;
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replies;
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        ByteBuffer message = xdr.asBuffer().toByteBuffer();
        int length = message.remaining();
        Backchannel channel = connection().backchannel();
        Backchannel.SendOutcome outcome = channel.send(message);
        if (outcome == Backchannel.SendOutcome.QUEUED) {
            handler.completed(length, attachment);
            return;
        }
        handler.failed(new IOException(refusal(outcome, channel, length)), attachment);
    }

    private String refusal(Backchannel.SendOutcome outcome, Backchannel channel, int length) {
        String to = "RPC-over-RDMA backward call (RFC 8167) to " + connection().remoteAddress() + " not sent: ";
        switch (outcome) {
            case DISABLED:
                return to + "the back channel is off (backchannelCredits = 0)";
            case CLOSED:
                return to + "the connection is closed";
            case TOO_LARGE:
                return to + "the call is " + length + " bytes, backward calls go inline only and may be at most "
                        + channel.maxCallSize() + " bytes (the client's receive size)";
            case NOT_A_CALL:
                return to + "the message is not an RPC call";
            case FULL:
                return to + Backchannel.MAX_WAITING + " backward calls already wait for the client's backward credits ("
                        + channel.credits() + ", " + channel.outstanding() + " outstanding)";
            default:
                return to + outcome;
        }
    }

    @Override
    public RpcTransport getPeerTransport() {
        return this;
    }

    @Override
    public String toString() {
        return "rdma-backchannel[" + connection().localAddress() + " -> " + connection().remoteAddress() + "]";
    }
}
