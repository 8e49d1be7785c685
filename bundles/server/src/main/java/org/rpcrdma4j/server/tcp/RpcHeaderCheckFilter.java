package org.rpcrdma4j.server.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.dcache.oncrpc4j.grizzly.GrizzlyRpcTransport;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.server.ClaimCheckedXdr;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.server.RpcHeaderCheck;

/**
 * RpcHeaderCheckFilter - {@link RpcHeaderCheck} in oncrpc4j's TCP filter chain, between its
 * record parser and its RPC protocol filter, so that the lengths a call's credential and
 * verifier claim are checked before oncrpc4j decodes them (its {@code Xdr} checks a claimed
 * opaque length only for being negative, then allocates it).
 *
 * <ul>
 * <li>A call with a malformed header is answered AUTH_ERROR (or dropped when it is too short
 *     to name its procedure) by the host's {@link RpcCallDispatcher}, counted and logged
 *     there as over RDMA; oncrpc4j never sees it.</li>
 * <li>A backward-direction reply (to a call the server made on the client's connection: an
 *     NFSv4.0 callback) with a malformed header is replaced by a denial with its xid (MSG_DENIED,
 *     AUTH_ERROR, AUTH_BADVERF), which oncrpc4j delivers to the waiting call as an
 *     {@code OncRpcRejectedException} at once, instead of decoding what it claims.</li>
 * <li>A sound message goes on as a {@link ClaimCheckedXdr} over the same bytes (the record
 *     parser before this filter makes it one: {@link ClaimCheckedRecordParser}), so that what
 *     its arguments (or results) claim is checked too when the program decodes them.</li>
 * </ul>
 */
final class RpcHeaderCheckFilter extends BaseFilter {

    private final RpcCallDispatcher dispatcher;
    /**
     * Only so that a transport for a refusal can be made: a refusal is a reply, so nothing is
     * ever registered in it. Shut down with the filter's service.
     */
    private final ReplyQueue refusalsExpectNoReply = new ReplyQueue();

    RpcHeaderCheckFilter(RpcCallDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    @SuppressWarnings("unchecked")
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (!(ctx.getMessage() instanceof Xdr xdr)) {
            return ctx.getInvokeAction();
        }
        Buffer message = xdr.asBuffer();
        int start = message.position();
        if (message.remaining() < RpcMessage.TYPED_MESSAGE_BYTES) {
            return ctx.getInvokeAction(); // oncrpc4j drops a message without xid and type
        }
        int xid = message.getInt(start + RpcMessage.XID_OFFSET);
        switch (message.getInt(start + RpcMessage.MSG_TYPE_OFFSET)) {
            case RpcMessage.CALL -> {
                RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkCall(message, start);
                if (fault == RpcHeaderCheck.Fault.NONE) {
                    ctx.setMessage(claimChecked(xdr, message, ctx.getMemoryManager()));
                    return ctx.getInvokeAction();
                }
                Connection<InetSocketAddress> connection = ctx.getConnection();
                RpcCall call = new RpcCall(xid, xdr, new GrizzlyRpcTransport(connection, refusalsExpectNoReply));
                dispatcher.refuseMalformed(call, fault, message.remaining());
                return ctx.getStopAction();
            }
            case RpcMessage.REPLY -> {
                RpcHeaderCheck.Fault fault = RpcHeaderCheck.checkReply(message, start);
                if (fault == RpcHeaderCheck.Fault.NONE) {
                    ctx.setMessage(claimChecked(xdr, message, ctx.getMemoryManager()));
                    return ctx.getInvokeAction();
                }
                dispatcher.refusedMalformedReply(xid, ctx.getConnection().getPeerAddress(), fault);
                Xdr denial = new Xdr(RpcMessage.AUTH_ERROR_REPLY_BYTES);
                denial.beginEncoding();
                denial.xdrEncodeInt(xid);
                denial.xdrEncodeInt(RpcMessage.REPLY);
                denial.xdrEncodeInt(RpcMessage.MSG_DENIED);
                denial.xdrEncodeInt(RpcMessage.AUTH_ERROR);
                denial.xdrEncodeInt(RpcMessage.AUTH_BADVERF);
                denial.endEncoding();
                ctx.setMessage(denial);
                return ctx.getInvokeAction();
            }
            default -> {
                return ctx.getInvokeAction(); // oncrpc4j logs and drops an unknown message type
            }
        }
    }

    /**
     * claimChecked() - the sound message as a {@link ClaimCheckedXdr}: the one the record parser
     * made ({@link ClaimCheckedRecordParser}), else a new one over the same bytes.
     */
    static ClaimCheckedXdr claimChecked(Xdr xdr, Buffer message, MemoryManager memoryManager) {
        return xdr instanceof ClaimCheckedXdr checked ? checked : new ClaimCheckedXdr(message, memoryManager);
    }

    /** Stops the reply queue's timer (it never has a thread: nothing is registered in it). */
    void shutdown() {
        refusalsExpectNoReply.shutdown();
    }
}
