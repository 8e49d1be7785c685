package org.rpcrdma4j.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * RpcHeaders - a fluent builder of ONC RPC call and reply headers (RFC 5531) for tests, with any
 * credential, verifier and claimed lengths, true or not.
 */
final class RpcHeaders {
    static final int AUTH_NONE = 0;
    static final int AUTH_SYS = 1;
    static final int RPCSEC_GSS = 6;

    private final ByteBuffer b = ByteBuffer.allocate(4096);

    private RpcHeaders() {
    }

    /** A call header up to the procedure: rpcvers 2. */
    static RpcHeaders call(int xid, int program, int version, int procedure) {
        RpcHeaders h = new RpcHeaders();
        h.b.putInt(xid).putInt(RpcMessages.CALL).putInt(2).putInt(program).putInt(version).putInt(procedure);
        return h;
    }

    /** A reply header up to the reply status. */
    static RpcHeaders reply(int xid, int replyStat) {
        RpcHeaders h = new RpcHeaders();
        h.b.putInt(xid).putInt(RpcMessages.REPLY).putInt(replyStat);
        return h;
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
        return auth(AUTH_NONE, new byte[0]);
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
        byte[] out = new byte[(bytes.length + 3) & ~3];
        System.arraycopy(bytes, 0, out, 0, bytes.length);
        return out;
    }
}
