package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * Whole ONC RPC messages for the tests, written with {@link RpcMessage}: a call of program
 * 100099 version 1 procedure 7 carrying opaque arguments, and a successful reply carrying opaque
 * results, both with AUTH_NONE.
 */
final class RpcMessages {
    private RpcMessages() {
    }

    /** A call whose arguments are the given bytes as variable-length opaque: data at {@link #callDataOffset()}. */
    static ByteBuffer call(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(callDataOffset() + (int) Xdr.roundUp(data.length));
        RpcMessage.putCallHeader(b, xid, 100_099, 1, 7).putInt(data.length).put(data);
        return b.position(0);
    }

    /** A successful reply whose results are the given bytes as variable-length opaque. */
    static ByteBuffer reply(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES
                + (int) Xdr.roundUp(data.length));
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(data.length).put(data);
        return b.position(0);
    }

    /** Offset of the opaque data of {@link #call}: past the header and the opaque's length word. */
    static int callDataOffset() {
        return RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES;
    }

    /** Deterministic test bytes: byte i is {@code seed + 7 i}. */
    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }
}
