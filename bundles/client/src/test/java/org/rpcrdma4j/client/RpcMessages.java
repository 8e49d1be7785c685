package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

/**
 * Builds ONC RPC messages (RFC 5531) with AUTH_NONE for the tests: a call carrying opaque
 * arguments, and a successful reply carrying opaque results.
 */
final class RpcMessages {
    /** Bytes before a call's arguments: xid, CALL, rpcvers, prog, vers, proc, cred (2), verf (2). */
    static final int CALL_HEADER = 40;
    /** Bytes before a reply's results: xid, REPLY, MSG_ACCEPTED, verf (2), SUCCESS. */
    static final int REPLY_HEADER = 24;

    private RpcMessages() {
    }

    /** A call whose arguments are the given bytes as variable-length opaque: data at offset 44. */
    static ByteBuffer call(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(CALL_HEADER + 4 + padded(data.length));
        b.putInt(xid).putInt(0).putInt(2).putInt(100_099).putInt(1).putInt(7).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(data.length).put(data);
        return b.position(0);
    }

    /** A successful reply whose results are the given bytes as variable-length opaque. */
    static ByteBuffer reply(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(REPLY_HEADER + 4 + padded(data.length));
        b.putInt(xid).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(data.length).put(data);
        return b.position(0);
    }

    /** Offset of the opaque data of {@link #call}. */
    static int callDataOffset() {
        return CALL_HEADER + 4;
    }

    static int padded(int length) {
        return (length + 3) & ~3;
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
