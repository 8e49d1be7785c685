package org.rpcrdma4j.transport.oncrpc;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.codec.RpcMessage;

/**
 * CallbackProgram - an oncrpc4j program that, while serving a call, calls the calling client
 * back over {@code getPeerTransport()} (RFC 8167 back channel), the way nfs4j's CREATE_SESSION
 * pings a client with CB_NULL, and returns the callback's result in its own reply.
 *
 * <p>CALLBACK(n, timeoutMs, padding) makes callback DOUBLE(n) (with {@code padding} bytes of
 * extra argument) on the client's callback program and answers {status, value}: status
 * {@link #OK} with the client's answer, or {@link #TIMED_OUT}, {@link #CLOSED}, {@link #REFUSED}
 * with the exception kept in {@link #failures}.
 */
final class CallbackProgram implements RpcDispatchable {
    static final int PROGRAM = 0x2000_0178;
    static final int VERSION = 1;
    static final int CALLBACK = 1;
    /** The client's callback program (like NFSv4.1's CB program 0x40000000). */
    static final int CB_PROGRAM = 0x4000_0178;
    static final int CB_VERSION = 1;
    static final int CB_DOUBLE = 1;

    static final int OK = 0;
    static final int TIMED_OUT = 1;
    static final int CLOSED = 2;
    static final int REFUSED = 3;

    final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        if (call.getProcedure() != CALLBACK) {
            call.retrieveCall(XdrVoid.XDR_VOID);
            call.reply(XdrVoid.XDR_VOID);
            return;
        }
        int[] args = new int[3];
        call.retrieveCall(ints(args));
        RpcTransport back = call.getTransport().getPeerTransport();
        RpcCall callback = new RpcCall(CB_PROGRAM, CB_VERSION, new RpcAuthTypeNone(), back);
        XdrInt result = new XdrInt();
        int status;
        try {
            XdrAble argument = doubleArgument(args[0], args[2]);
            if (args[1] > 0) {
                callback.call(CB_DOUBLE, argument, result, args[1], TimeUnit.MILLISECONDS);
            } else {
                callback.call(CB_DOUBLE, argument, result);
            }
            status = OK;
        } catch (TimeoutException e) {
            failures.add(e);
            status = TIMED_OUT;
        } catch (EOFException e) {
            failures.add(e);
            status = CLOSED;
        } catch (IOException e) {
            failures.add(e);
            status = REFUSED;
        }
        call.reply(ints(new int[] {status, status == OK ? result.intValue() : 0}));
    }

    private static XdrAble doubleArgument(int n, int padding) {
        return new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) {
                xdr.xdrEncodeInt(n);
                xdr.xdrEncodeDynamicOpaque(new byte[padding]);
            }
        };
    }

    /** An XDR array of fixed length of ints, in and out. */
    static XdrAble ints(int[] values) {
        return new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) throws IOException {
                for (int i = 0; i < values.length; i++) {
                    values[i] = xdr.xdrDecodeInt();
                }
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) {
                for (int value : values) {
                    xdr.xdrEncodeInt(value);
                }
            }
        };
    }

    /** @return the n of a CB_DOUBLE call message (RFC 5531 call header, then the arguments) */
    static int callbackArgument(ByteBuffer call) {
        return call.getInt(call.position() + RpcMessage.argumentsOffset(call));
    }

    /** @return an accepted, successful RPC reply to {@code call} carrying one int */
    static ByteBuffer intReply(ByteBuffer call, int value) {
        ByteBuffer reply = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES);
        return RpcMessage.putAcceptedReplyHeader(reply, call.getInt(call.position()), RpcMessage.SUCCESS).putInt(value).flip();
    }
}
