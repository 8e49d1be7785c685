package org.rpcrdma4j.testing.rawpeer;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.RpcMessage;

/**
 * RpcCallHeader - whole RPC call messages for a raw peer's tests: the codec's call header
 * ({@link RpcMessage#putCallHeader}: xid, CALL, RPC version 2, program, version, procedure, AUTH_NONE
 * credential and verifier) followed by the arguments.
 */
public final class RpcCallHeader {
    /** Bytes of a call header with AUTH_NONE credential and verifier. */
    public static final int BYTES = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES;

    private RpcCallHeader() {
    }

    /** @return a call message: the header, then {@code arguments} (whole XDR units) */
    public static byte[] call(int xid, int program, int version, int procedure, byte[] arguments) {
        ByteBuffer b = ByteBuffer.allocate(BYTES + arguments.length);
        RpcMessage.putCallHeader(b, xid, program, version, procedure).put(arguments);
        return b.array();
    }
}
