package org.rpcrdma4j.testing.rawpeer;

import java.nio.ByteBuffer;

/**
 * RpcCallHeader - the ONC RPC call header (RFC 5531 section 9) a raw peer puts before a call's
 * arguments: xid, CALL, RPC version 2, program, version, procedure, and AUTH_NONE credential and
 * verifier. The only place of this module that knows the RPC message layout.
 *
 * <pre>
 *   0 xid | 4 msg_type = CALL (0) | 8 rpcvers = 2 | 12 prog | 16 vers | 20 proc
 *  24 cred flavor AUTH_NONE (0) | 28 cred length 0 | 32 verf flavor AUTH_NONE (0) | 36 verf length 0
 * </pre>
 */
public final class RpcCallHeader {
    /** Bytes of a call header with AUTH_NONE credential and verifier. */
    public static final int BYTES = 40;

    private RpcCallHeader() {
    }

    /**
     * write() - the call header at {@code at} of {@code buffer} (absolute; position unchanged).
     *
     * @return {@link #BYTES}
     */
    public static int write(ByteBuffer buffer, int at, int xid, int program, int version, int procedure) {
        buffer.putInt(at, xid).putInt(at + 4, 0).putInt(at + 8, 2).putInt(at + 12, program).putInt(at + 16, version)
                .putInt(at + 20, procedure).putInt(at + 24, 0).putInt(at + 28, 0).putInt(at + 32, 0).putInt(at + 36, 0);
        return BYTES;
    }

    /** @return a call message: the header, then {@code arguments} (whole XDR units) */
    public static byte[] call(int xid, int program, int version, int procedure, byte[] arguments) {
        ByteBuffer b = ByteBuffer.allocate(BYTES + arguments.length);
        write(b, 0, xid, program, version, procedure);
        b.put(BYTES, arguments);
        return b.array();
    }
}
