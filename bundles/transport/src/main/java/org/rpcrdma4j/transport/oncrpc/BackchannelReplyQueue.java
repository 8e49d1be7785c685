package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.server.ClaimCheckedXdr;
import org.rpcrdma4j.server.MalformedRpcHeaderException;
import org.rpcrdma4j.server.RpcHeaderCheck;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.RdmaConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * BackchannelReplyQueue - oncrpc4j's {@link ReplyQueue} for the backward calls of one RDMA
 * connection: {@code RpcCall.call(...)} registers each call's handler here before it sends the
 * call through the {@link BackchannelTransport}; the client's reply completes it, matched by xid;
 * a timeout fails it with a {@link TimeoutException} (and gives its backward credit back through
 * {@link Backchannel#forget}); a reply the transport refused ({@link #refuse}) or whose header is
 * malformed ({@link #deliver}) fails it at once; the connection's close fails every handler still registered with
 * an {@link EOFException} naming the client, at once.
 *
 * <p>One per connection, so xids of different connections never meet and a close fails exactly
 * its own calls. Timeouts and completions run on the transport's shared back-channel thread
 * (never on the completion thread): handlers MUST NOT block it, as over oncrpc4j's TCP, where they
 * run on Grizzly's threads. The superclass's own timer is never used, so no thread is started per
 * connection. {@link #getPendingRequests()} is the superclass's (always empty): pending calls are
 * not listed.
 *
 * <p>Threading: every method is safe from any thread.
 */
final class BackchannelReplyQueue extends ReplyQueue {
    private static final Logger LOG = LoggerFactory.getLogger(BackchannelReplyQueue.class);

    private final RdmaConnection connection;
    private final ScheduledExecutorService scheduler;
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private volatile IOException closed;
    private volatile RpcTransport transport;

    BackchannelReplyQueue(RdmaConnection connection, ScheduledExecutorService scheduler) {
        this.connection = connection;
        this.scheduler = scheduler;
    }

    /** bind() - the transport handlers are completed with (the back channel this queue serves). */
    void bind(RpcTransport backchannel) {
        this.transport = backchannel;
    }

    @Override
    public void registerKey(int xid, SocketAddress address, CompletionHandler<RpcReply, RpcTransport> handler)
            throws EOFException {
        registerKey(xid, address, handler, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public void registerKey(int xid, SocketAddress address, CompletionHandler<RpcReply, RpcTransport> handler, long timeout,
                            TimeUnit unit) throws EOFException {
        IOException cause = closed;
        if (cause != null) {
            throw eof(cause);
        }
        Pending entry = new Pending(handler);
        pending.put(xid, entry);
        if (timeout > 0 && unit != null) {
            try {
                entry.timeout = scheduler.schedule(() -> onTimeout(xid, timeout, unit), timeout, unit);
            } catch (RejectedExecutionException e) {
                pending.remove(xid, entry);
                throw new EOFException("the RPC-over-RDMA transport serving " + connection.remoteAddress() + " has stopped");
            }
        }
        cause = closed;
        if (cause != null && pending.remove(xid, entry)) {
            // Closed between the check and the put: this call would never be failed by close().
            entry.cancelTimeout();
            throw eof(cause);
        }
    }

    @Override
    public CompletionHandler<RpcReply, RpcTransport> get(int xid) {
        Pending entry = pending.remove(xid);
        if (entry == null) {
            return null;
        }
        entry.cancelTimeout();
        return entry.handler;
    }

    @Override
    public void handleDisconnect(SocketAddress address) {
        failAll(new EOFException("RPC-over-RDMA connection to " + connection.remoteAddress() + " disconnected"));
    }

    /** @return backward calls whose handler waits for a reply */
    int size() {
        return pending.size();
    }

    /**
     * deliver() - the client's reply to backward call {@code xid}: complete its handler. A reply
     * whose call timed out meanwhile is dropped (its handler already failed).
     *
     * <p>The reply's header is walked by {@link RpcHeaderCheck} before oncrpc4j decodes anything
     * (oncrpc4j allocates whatever verifier length the client claims): a malformed one fails the
     * handler at once with a {@link MalformedRpcHeaderException} naming the fault. Whatever goes
     * wrong after the handler was taken (its registration is gone from then on) fails it, down to
     * an {@link Error}: no failure leaves a caller waiting.
     */
    void deliver(int xid, ByteBuffer message) {
        CompletionHandler<RpcReply, RpcTransport> handler = get(xid);
        if (handler == null) {
            LOG.debug("Dropping the reply to backward call xid 0x{} from {}: nobody waits for it any more",
                    Integer.toHexString(xid), connection.remoteAddress());
            return;
        }
        RpcReply reply;
        try {
            RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkReply(message);
            if (fault != RpcHeaderCheck.Fault.NONE) {
                fail(handler, xid, new MalformedRpcHeaderException(fault, "the reply from " + connection.remoteAddress()
                        + " to backward call xid 0x" + Integer.toHexString(xid)));
                return;
            }
            Xdr xdr = new ClaimCheckedXdr(message.array());
            xdr.beginDecoding();
            xdr.xdrDecodeInt(); // xid
            xdr.xdrDecodeInt(); // message type: REPLY
            reply = new RpcReply(xid, xdr, transport);
        } catch (IOException e) {
            fail(handler, xid, e);
            return;
        } catch (Throwable e) { // the last guard: the handler is ours alone now, it must hear
            fail(handler, xid, new IOException("the reply from " + connection.remoteAddress() + " to backward call xid 0x"
                    + Integer.toHexString(xid) + " could not be decoded: " + e, e));
            return;
        }
        try {
            handler.completed(reply, transport);
        } catch (Throwable e) {
            LOG.warn("The handler of backward call xid 0x{} to {} failed", Integer.toHexString(xid), connection.remoteAddress(), e);
        }
    }

    /**
     * refuse() - the client's reply to backward call {@code xid} was dropped by the transport
     * (it came in a form the transport does not take, and the call's credit is back): fail its
     * handler now with {@code cause}.
     */
    void refuse(int xid, IOException cause) {
        CompletionHandler<RpcReply, RpcTransport> handler = get(xid);
        if (handler != null) {
            fail(handler, xid, cause);
        }
    }

    /** fail() - fail a handler taken from the queue; a handler that throws is logged, never rethrown. */
    private void fail(CompletionHandler<RpcReply, RpcTransport> handler, int xid, Throwable cause) {
        try {
            handler.failed(cause, transport);
        } catch (Throwable e) {
            LOG.warn("The handler of backward call xid 0x{} to {} failed", Integer.toHexString(xid), connection.remoteAddress(), e);
        }
    }

    /**
     * failAll() - the connection closed: every handler still waiting fails with {@code cause},
     * and so does every later registration.
     */
    void failAll(IOException cause) {
        closed = cause;
        for (Integer xid : pending.keySet()) {
            CompletionHandler<RpcReply, RpcTransport> handler = get(xid);
            if (handler != null) {
                fail(handler, xid, cause);
            }
        }
    }

    private void onTimeout(int xid, long timeout, TimeUnit unit) {
        CompletionHandler<RpcReply, RpcTransport> handler = get(xid);
        if (handler == null) {
            return;
        }
        connection.backchannel().forget(xid);
        fail(handler, xid, new TimeoutException("no reply from " + connection.remoteAddress() + " to backward call xid 0x"
                + Integer.toHexString(xid) + " within " + timeout + " " + unit));
    }

    private static EOFException eof(IOException cause) {
        EOFException e = new EOFException(cause.getMessage());
        e.initCause(cause);
        return e;
    }

    /** A registered handler and its timeout. */
    private static final class Pending {
        final CompletionHandler<RpcReply, RpcTransport> handler;
        volatile ScheduledFuture<?> timeout;

        Pending(CompletionHandler<RpcReply, RpcTransport> handler) {
            this.handler = handler;
        }

        void cancelTimeout() {
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
        }
    }
}
