package org.rpcrdma4j.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * RpcHeaders - a fluent builder of ONC RPC call and reply headers (RFC 5531) for tests, with any
 * credential, verifier and claimed lengths, true or not.
 */
final class RpcHeaders {
    private final ByteBuffer b = ByteBuffer.allocate(4096);

    private RpcHeaders() {
    }

    /** A call header up to the procedure: rpcvers 2. */
    static RpcHeaders call(int xid, int program, int version, int procedure) {
        RpcHeaders h = new RpcHeaders();
        h.b.putInt(xid).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(program).putInt(version)
                .putInt(procedure);
        return h;
    }

    /** A reply header up to the reply status. */
    static RpcHeaders reply(int xid, int replyStat) {
        RpcHeaders h = new RpcHeaders();
        h.b.putInt(xid).putInt(RpcMessage.REPLY).putInt(replyStat);
        return h;
    }

    /** A whole call with AUTH_NONE credential and verifier, any RPC version, and the given argument words. */
    static byte[] nullAuthCall(int xid, int rpcVersion, int program, int version, int procedure, int... argumentWords) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES * argumentWords.length);
        RpcMessage.putCallHeader(b, xid, program, version, procedure).putInt(RpcMessage.RPCVERS_OFFSET, rpcVersion);
        for (int word : argumentWords) {
            b.putInt(word);
        }
        return b.array();
    }

    /** The decoded head of a reply: {xid, reply_stat, accept_stat or reject_stat}. */
    static int[] replyHead(ByteBuffer reply) {
        ByteBuffer b = reply.slice();
        if (!RpcMessage.isReply(b)) {
            throw new AssertionError("not a reply: message type " + RpcMessage.messageType(b));
        }
        int replyStat = b.getInt(RpcMessage.REPLY_STAT_OFFSET);
        int status = replyStat == RpcMessage.MSG_ACCEPTED ? RpcMessage.acceptStatOffset(b) : RpcMessage.REPLY_BODY_OFFSET;
        return new int[] {b.getInt(RpcMessage.XID_OFFSET), replyStat, b.getInt(status)};
    }

    /** An opaque_auth whose length field says {@code claimed}, followed by {@code body} as it is. */
    RpcHeaders auth(int flavor, int claimed, byte[] body) {
        b.putInt(flavor).putInt(claimed).put(body);
        return this;
    }

    /** An opaque_auth with a true length and its body padded. */
    RpcHeaders auth(int flavor, byte[] body) {
        return auth(flavor, body.length, padded(body));
    }

    /** AUTH_NONE with an empty body. */
    RpcHeaders none() {
        return auth(RpcMessage.AUTH_NONE, new byte[0]);
    }

    RpcHeaders words(int... words) {
        for (int w : words) {
            b.putInt(w);
        }
        return this;
    }

    byte[] bytes() {
        byte[] out = new byte[b.position()];
        b.duplicate().flip().get(out);
        return out;
    }

    /** An authsys_parms body: stamp, machine name (its length field says {@code claimedName}), uid, gid, gids (count says {@code claimedGids}). */
    static byte[] authSysClaiming(String machine, int claimedName, int claimedGids, int... gids) {
        byte[] name = padded(machine.getBytes(StandardCharsets.US_ASCII));
        ByteBuffer body = ByteBuffer.allocate(20 + name.length + 4 * gids.length);
        body.putInt(0x1234).putInt(claimedName).put(name).putInt(1000).putInt(100).putInt(claimedGids);
        for (int g : gids) {
            body.putInt(g);
        }
        return body.array();
    }

    /** A sound authsys_parms body. */
    static byte[] authSys(String machine, int... gids) {
        return authSysClaiming(machine, machine.length(), gids.length, gids);
    }

    /** An rpc_gss_cred_vers_1_t body whose handle length field says {@code claimedHandle}. */
    static byte[] gss(int claimedHandle, byte[] handle) {
        byte[] h = padded(handle);
        return ByteBuffer.allocate(20 + h.length).putInt(1).putInt(0).putInt(7).putInt(1).putInt(claimedHandle).put(h)
                .array();
    }

    static byte[] padded(byte[] bytes) {
        byte[] out = new byte[(int) Xdr.roundUp(bytes.length)];
        System.arraycopy(bytes, 0, out, 0, bytes.length);
        return out;
    }
}
