package org.rpcrdma4j.server;

import java.nio.ByteBuffer;

import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * RpcHeaderCheck - one validating walk of an ONC RPC message header (RFC 5531 §9) before
 * oncrpc4j decodes anything of it.
 *
 * <p>oncrpc4j's {@code Xdr} trusts every length the peer claims (it refuses only negative ones):
 * an opaque_auth body, an AUTH_SYS machine name, a gid vector or an RPCSEC_GSS handle that claims
 * 2^31 bytes makes it allocate that much, or throw {@link OutOfMemoryError}. This walk reads the
 * header in place, allocates nothing, and range-checks every length before the next field is
 * read:
 * <pre>
 *   call:  xid | CALL | rpcvers | prog | vers | proc | cred: flavor, length, body | verf: flavor, length, body
 *   reply: xid | REPLY | MSG_ACCEPTED | verf: flavor, length, body | accept_stat [| low | high]
 *                      | MSG_DENIED   | RPC_MISMATCH | low | high
 *                                     | AUTH_ERROR   | auth_stat
 * </pre>
 * <ul>
 * <li>every opaque_auth body: at most {@link RpcMessage#MAX_AUTH_BYTES} and within the message;</li>
 * <li>AUTH_SYS credential (RFC 5531 appendix A): machine name at most
 *     {@link #MAX_MACHINE_NAME_BYTES}, at most {@link #MAX_AUTH_SYS_GIDS} gids, each field within
 *     the body and the body exactly consumed (oncrpc4j decodes the fields one after the other,
 *     whatever the body length says, so anything else would make it read the verifier elsewhere
 *     than this walk did);</li>
 * <li>RPCSEC_GSS credential (RFC 2203 §5): the handle within the body, the body exactly consumed,
 *     for the same reason.</li>
 * </ul>
 * A call whose RPC version is not 2 is not walked past the procedure: oncrpc4j answers it with
 * RPC_MISMATCH before it reads the credential.
 *
 * <p>Assumptions: the message lies between {@code start} and the buffer's limit, big-endian.
 * Neither the buffer's position nor its limit is changed. Threading: stateless, any thread.
 */
public final class RpcHeaderCheck {
    /** RFC 5531 appendix A: the longest AUTH_SYS machine name. */
    public static final int MAX_MACHINE_NAME_BYTES = 255;
    /** RFC 5531 appendix A: the most gids of an AUTH_SYS credential. */
    public static final int MAX_AUTH_SYS_GIDS = 16;

    /** Words of an AUTH_SYS body around its machine name and gids: stamp, name length, uid, gid, gid count. */
    static final int AUTH_SYS_FIXED_WORDS = 5;
    /** Words of an RPCSEC_GSS credential body before its handle: version, procedure, sequence, service, handle length. */
    static final int GSS_FIXED_WORDS = 5;

    /** What is wrong with a header: {@link #NONE}, or the first fault the walk met. */
    public enum Fault {
        NONE("sound", RpcAuthStat.AUTH_OK),
        /** The message ends before the header does (a call: before its credential). */
        TRUNCATED("the message ends inside the RPC header", RpcAuthStat.AUTH_BADCRED),
        /** Not the message type the walk was asked for. */
        WRONG_MESSAGE_TYPE("wrong RPC message type", RpcAuthStat.AUTH_BADCRED),
        CREDENTIAL_TOO_LONG("the credential claims more than 400 bytes (MAX_AUTH_BYTES)", RpcAuthStat.AUTH_BADCRED),
        CREDENTIAL_TRUNCATED("the credential claims more bytes than the message holds", RpcAuthStat.AUTH_BADCRED),
        MACHINE_NAME_TOO_LONG("the AUTH_SYS machine name claims more than 255 bytes", RpcAuthStat.AUTH_BADCRED),
        TOO_MANY_GIDS("the AUTH_SYS credential claims more than 16 gids", RpcAuthStat.AUTH_BADCRED),
        CREDENTIAL_BODY_MISMATCH("the credential's fields do not fill its body exactly", RpcAuthStat.AUTH_BADCRED),
        VERIFIER_MISSING("the message ends before the verifier", RpcAuthStat.AUTH_BADVERF),
        VERIFIER_TOO_LONG("the verifier claims more than 400 bytes (MAX_AUTH_BYTES)", RpcAuthStat.AUTH_BADVERF),
        VERIFIER_TRUNCATED("the verifier claims more bytes than the message holds", RpcAuthStat.AUTH_BADVERF),
        UNKNOWN_REPLY_STATUS("the reply status is neither MSG_ACCEPTED nor MSG_DENIED", RpcAuthStat.AUTH_OK),
        UNKNOWN_REJECT_STATUS("the reject status is neither RPC_MISMATCH nor AUTH_ERROR", RpcAuthStat.AUTH_OK);

        private final String description;
        private final int authStat;

        Fault(String description, int authStat) {
            this.description = description;
            this.authStat = authStat;
        }

        /** @return what is wrong, for a log line or an exception */
        public String description() {
            return description;
        }

        /** @return the auth_stat a call with this fault is rejected with (AUTH_ERROR) */
        public int authStat() {
            return authStat;
        }
    }

    private RpcHeaderCheck() {
    }

    /**
     * checkCall() - walk an RPC call header.
     *
     * @param message the call message, from {@code start} (its xid) to its limit
     * @param start the index of the xid
     * @return {@link Fault#NONE}, {@link Fault#TRUNCATED} when the message ends before the
     *         credential (nothing to answer), or the credential or verifier fault
     */
    public static Fault checkCall(Buffer message, int start) {
        int limit = message.limit();
        if (remaining(start, limit) < RpcMessage.CALL_FIXED_BYTES) {
            return Fault.TRUNCATED;
        }
        if (message.getInt(start + RpcMessage.MSG_TYPE_OFFSET) != RpcMessage.CALL) {
            return Fault.WRONG_MESSAGE_TYPE;
        }
        if (message.getInt(start + RpcMessage.RPCVERS_OFFSET) != RpcMessage.RPC_VERSION) {
            return Fault.NONE; // oncrpc4j answers RPC_MISMATCH without reading further
        }
        int at = start + RpcMessage.CREDENTIAL_OFFSET;
        if (remaining(at, limit) < RpcMessage.AUTH_HEAD_BYTES) {
            return Fault.CREDENTIAL_TRUNCATED;
        }
        int flavor = message.getInt(at);
        int length = message.getInt(at + Integer.BYTES);
        at += RpcMessage.AUTH_HEAD_BYTES;
        if (Integer.compareUnsigned(length, RpcMessage.MAX_AUTH_BYTES) > 0) {
            return Fault.CREDENTIAL_TOO_LONG;
        }
        int padded = pad(length);
        if (remaining(at, limit) < padded) {
            return Fault.CREDENTIAL_TRUNCATED;
        }
        Fault body = switch (flavor) {
            case RpcMessage.AUTH_SYS -> checkAuthSys(message, at, length);
            case RpcMessage.RPCSEC_GSS -> checkGss(message, at, length);
            default -> Fault.NONE;
        };
        if (body != Fault.NONE) {
            return body;
        }
        return checkVerifier(message, at + padded, limit);
    }

    /**
     * checkReply() - walk an RPC reply header, up to its results.
     *
     * @param message the reply message, from {@code start} (its xid) to its limit
     * @param start the index of the xid
     * @return {@link Fault#NONE} or the first fault
     */
    public static Fault checkReply(Buffer message, int start) {
        int limit = message.limit();
        if (remaining(start, limit) < RpcMessage.REPLY_BODY_OFFSET) {
            return Fault.TRUNCATED;
        }
        if (message.getInt(start + RpcMessage.MSG_TYPE_OFFSET) != RpcMessage.REPLY) {
            return Fault.WRONG_MESSAGE_TYPE;
        }
        int at = start + RpcMessage.REPLY_BODY_OFFSET;
        switch (message.getInt(start + RpcMessage.REPLY_STAT_OFFSET)) {
            case RpcMessage.MSG_ACCEPTED: {
                Fault verifier = checkVerifier(message, at, limit);
                if (verifier != Fault.NONE) {
                    return verifier;
                }
                at += RpcMessage.AUTH_HEAD_BYTES + pad(message.getInt(at + Integer.BYTES));
                if (remaining(at, limit) < Integer.BYTES) {
                    return Fault.TRUNCATED;
                }
                int words = message.getInt(at) == RpcMessage.PROG_MISMATCH ? 3 : 1;
                return remaining(at, limit) < words * Integer.BYTES ? Fault.TRUNCATED : Fault.NONE;
            }
            case RpcMessage.MSG_DENIED: {
                if (remaining(at, limit) < Integer.BYTES) {
                    return Fault.TRUNCATED;
                }
                int words = switch (message.getInt(at)) {
                    case RpcMessage.RPC_MISMATCH -> 3;
                    case RpcMessage.AUTH_ERROR -> 2;
                    default -> -1;
                };
                if (words < 0) {
                    return Fault.UNKNOWN_REJECT_STATUS;
                }
                return remaining(at, limit) < words * Integer.BYTES ? Fault.TRUNCATED : Fault.NONE;
            }
            default:
                return Fault.UNKNOWN_REPLY_STATUS;
        }
    }

    /**
     * checkReply() - as {@link #checkReply(Buffer, int)}, for a reply held in a byte buffer
     * between its position and its limit (neither is changed).
     */
    public static Fault checkReply(ByteBuffer message) {
        return checkReply(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, message.slice()), 0);
    }

    /** checkVerifier() - an opaque_auth verifier at {@code at}: present, short enough, within the message. */
    private static Fault checkVerifier(Buffer message, int at, int limit) {
        if (remaining(at, limit) < RpcMessage.AUTH_HEAD_BYTES) {
            return Fault.VERIFIER_MISSING;
        }
        int length = message.getInt(at + Integer.BYTES);
        if (Integer.compareUnsigned(length, RpcMessage.MAX_AUTH_BYTES) > 0) {
            return Fault.VERIFIER_TOO_LONG;
        }
        if (remaining(at + RpcMessage.AUTH_HEAD_BYTES, limit) < pad(length)) {
            return Fault.VERIFIER_TRUNCATED;
        }
        return Fault.NONE;
    }

    /**
     * checkAuthSys() - an authsys_parms body of {@code length} bytes at {@code at}, already known
     * to lie within the message: stamp, machine name, uid, gid, gids.
     */
    private static Fault checkAuthSys(Buffer message, int at, int length) {
        if (length < AUTH_SYS_FIXED_WORDS * Integer.BYTES) {
            return Fault.CREDENTIAL_BODY_MISMATCH;
        }
        int name = message.getInt(at + 4);
        if (Integer.compareUnsigned(name, MAX_MACHINE_NAME_BYTES) > 0) {
            return Fault.MACHINE_NAME_TOO_LONG;
        }
        // name <= 255: no overflow below, and length <= 400.
        int gidsAt = 2 * Integer.BYTES + pad(name) + 2 * Integer.BYTES;
        if (gidsAt + Integer.BYTES > length) {
            return Fault.CREDENTIAL_BODY_MISMATCH;
        }
        int gids = message.getInt(at + gidsAt);
        if (Integer.compareUnsigned(gids, MAX_AUTH_SYS_GIDS) > 0) {
            return Fault.TOO_MANY_GIDS;
        }
        if (gidsAt + Integer.BYTES + gids * Integer.BYTES != length) {
            return Fault.CREDENTIAL_BODY_MISMATCH;
        }
        return Fault.NONE;
    }

    /**
     * checkGss() - an rpc_gss_cred_vers_1_t body of {@code length} bytes at {@code at}, already
     * known to lie within the message: version, procedure, sequence, service, handle.
     */
    private static Fault checkGss(Buffer message, int at, int length) {
        if (length < GSS_FIXED_WORDS * Integer.BYTES) {
            return Fault.CREDENTIAL_BODY_MISMATCH;
        }
        int handle = message.getInt(at + (GSS_FIXED_WORDS - 1) * Integer.BYTES);
        // length <= 400: a handle longer than that cannot fit, and pad() cannot overflow below it.
        if (Integer.compareUnsigned(handle, RpcMessage.MAX_AUTH_BYTES) > 0
                || GSS_FIXED_WORDS * Integer.BYTES + pad(handle) != length) {
            return Fault.CREDENTIAL_BODY_MISMATCH;
        }
        return Fault.NONE;
    }

    /** @return bytes from {@code at} to {@code limit}, 0 when {@code at} is beyond it */
    private static int remaining(int at, int limit) {
        return Math.max(0, limit - at);
    }

    /** @return {@code length} rounded up to a whole XDR word; {@code length} MUST be within 0..MAX_AUTH_BYTES */
    private static int pad(int length) {
        return (int) Xdr.roundUp(length);
    }
}
