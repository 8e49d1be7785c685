package org.rpcrdma4j.transport.oncrpc;

import java.nio.ByteBuffer;

/**
 * RpcMessages - the few fixed fields of ONC RPC messages (RFC 5531 §9) the bridge reads itself:
 * a call's program, version and procedure, and where an accepted, successful reply's results
 * begin. Pure functions; absolute reads only; never throw for short or odd input.
 */
final class RpcMessages {
    static final int CALL = 0;
    static final int REPLY = 1;
    private static final int MSG_ACCEPTED = 0;
    private static final int SUCCESS = 0;
    private static final int MAX_AUTH_BYTES = 400;

    private RpcMessages() {
    }

    /** @return the message type word (CALL 0, REPLY 1), or -1 when too short */
    static int messageType(ByteBuffer message) {
        return message.remaining() >= 8 ? message.getInt(message.position() + 4) : -1;
    }

        /**
     * resultsOffset() - where the results of an accepted reply with status SUCCESS begin.
     *
     * @return the offset relative to the position, or -1 for any other reply or a malformed one
     */
    static int resultsOffset(ByteBuffer reply) {
        int base = reply.position();
        int length = reply.remaining();
        if (length < 24 || reply.getInt(base + 4) != REPLY || reply.getInt(base + 8) != MSG_ACCEPTED) {
            return -1;
        }
        int verifierLength = reply.getInt(base + 16);
        if (verifierLength < 0 || verifierLength > MAX_AUTH_BYTES) {
            return -1;
        }
        int status = 20 + ((verifierLength + 3) & ~3);
        if (status + 4 > length || reply.getInt(base + status) != SUCCESS) {
            return -1;
        }
        return status + 4;
    }
}
