package org.rpcrdma4j.server;

import java.nio.ByteBuffer;

/** Hand-built ONC RPC (RFC 5531) messages for tests. */
final class RpcMessages {

    static final int CALL = 0;
    static final int REPLY = 1;
    static final int MSG_ACCEPTED = 0;
    static final int MSG_DENIED = 1;

    private RpcMessages() {
    }

    /** A CALL with AUTH_NONE credentials and verifier, and the given argument words. */
    static byte[] call(int xid, int rpcVersion, int program, int version, int procedure, int... argumentWords) {
        ByteBuffer b = ByteBuffer.allocate(40 + 4 * argumentWords.length);
        b.putInt(xid).putInt(CALL).putInt(rpcVersion).putInt(program).putInt(version).putInt(procedure);
        b.putInt(0).putInt(0); // credentials: AUTH_NONE, empty body
        b.putInt(0).putInt(0); // verifier: AUTH_NONE, empty body
        for (int word : argumentWords) {
            b.putInt(word);
        }
        return b.array();
    }

    /** The decoded head of a reply: {xid, reply_stat, accept_stat or reject_stat}. */
    static int[] replyHead(ByteBuffer reply) {
        ByteBuffer b = reply.duplicate();
        int xid = b.getInt();
        int type = b.getInt();
        if (type != REPLY) {
            throw new AssertionError("not a reply: message type " + type);
        }
        int replyStat = b.getInt();
        if (replyStat == MSG_ACCEPTED) {
            b.getInt(); // verifier flavor
            int verifierLength = b.getInt();
            b.position(b.position() + ((verifierLength + 3) & ~3));
        }
        return new int[] {xid, replyStat, b.getInt()};
    }
}
