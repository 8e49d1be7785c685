package org.rpcrdma4j.shell;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcAuthType;
import org.dcache.oncrpc4j.rpc.RpcMessageType;
import org.dcache.oncrpc4j.rpc.RpcReplyStatus;

/**
 * NullCall - the ONC RPC messages of the benchmark (RFC 5531 §9): a call of procedure 0 (NULL)
 * with AUTH_NONE credentials and verifier, optionally carrying an opaque argument (which NULL
 * ignores: it only makes the call larger), and the check of its reply.
 *
 * <pre>
 *  call:  xid | CALL | rpcvers=2 | prog | vers | proc=0 | AUTH_NONE, 0 | AUTH_NONE, 0   (10 words)
 *         [ opaque length | opaque bytes, padded to a word ]          (with argument bytes only)
 *  reply: xid | REPLY | MSG_ACCEPTED | verf flavor | verf length | verf body (padded) | SUCCESS
 * </pre>
 */
final class NullCall {
    /** The NULL procedure's number. */
    static final int NULL_PROCEDURE = 0;
    /** The RPC protocol version (RFC 5531 §9). */
    static final int RPC_VERSION = 2;
    /** Words of a NULL call with AUTH_NONE credentials and verifier. */
    static final int CALL_WORDS = 10;
    /** Byte offset of the opaque argument's bytes (after its length word): its XDR position. */
    static final int ARGUMENT_OFFSET = (CALL_WORDS + 1) * Integer.BYTES;
    /** Words of the shortest accepted reply: xid, REPLY, MSG_ACCEPTED, verifier (2), accept_stat. */
    static final int MIN_ACCEPTED_REPLY_WORDS = 6;
    /** The largest opaque_auth body (RFC 5531 §8.2). */
    static final int MAX_AUTH_BYTES = 400;

    private NullCall() {
    }

    /**
     * encode() - the call message with void arguments, big-endian, position 0, limit at its end.
     *
     * @param xid the transaction id
     * @param program the program number
     * @param version the program version
     * @return a fresh heap buffer owned by the caller
     */
    static ByteBuffer encode(int xid, int program, int version) {
        return encode(xid, program, version, 0);
    }

    /**
     * encode() - the call message, big-endian, position 0, limit at its end.
     *
     * @param xid the transaction id
     * @param program the program number
     * @param version the program version
     * @param argumentBytes 0 for void arguments, else the length of an opaque argument whose
     *        bytes (a pattern: byte i is i mod 251) start at {@link #ARGUMENT_OFFSET}
     * @return a fresh heap buffer owned by the caller
     */
    static ByteBuffer encode(int xid, int program, int version, int argumentBytes) {
        int length = CALL_WORDS * Integer.BYTES + (argumentBytes == 0 ? 0 : Integer.BYTES + padded(argumentBytes));
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
        b.putInt(xid).putInt(RpcMessageType.CALL).putInt(RPC_VERSION).putInt(program).putInt(version).putInt(NULL_PROCEDURE);
        b.putInt(RpcAuthType.NONE).putInt(0);
        b.putInt(RpcAuthType.NONE).putInt(0);
        if (argumentBytes > 0) {
            b.putInt(argumentBytes);
            b.put(argument(argumentBytes));
        }
        return b.position(0);
    }

    /**
     * @param length the argument's length
     * @return the argument's bytes: byte i is i mod 251 (a prime, so no word repeats in step)
     */
    static byte[] argument(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i % 251);
        }
        return bytes;
    }

    /** @return {@code length} rounded up to a whole XDR word */
    static int padded(int length) {
        return (length + 3) & ~3;
    }

    /**
     * checkReply() - checks that {@code reply} answers {@code xid} with an accepted SUCCESS.
     *
     * @param reply the reply message from position to limit (not consumed)
     * @param xid the call's transaction id
     * @throws IOException naming what was wrong: the xid, the message type, MSG_DENIED and its
     *         reason, the accept status (PROG_UNAVAIL, ...), or a truncated message
     */
    static void checkReply(ByteBuffer reply, int xid) throws IOException {
        ByteBuffer b = reply.slice().order(ByteOrder.BIG_ENDIAN);
        if (b.remaining() < 3 * Integer.BYTES) {
            throw new IOException("reply of " + b.remaining() + " bytes is too short for an RPC reply header");
        }
        int replyXid = b.getInt();
        if (replyXid != xid) {
            throw new IOException("reply xid 0x" + Integer.toHexString(replyXid) + " does not match the call's 0x"
                    + Integer.toHexString(xid));
        }
        int type = b.getInt();
        if (type != RpcMessageType.REPLY) {
            throw new IOException("message type " + type + " is not REPLY");
        }
        int status = b.getInt();
        if (status == RpcReplyStatus.MSG_DENIED) {
            int reason = b.remaining() >= Integer.BYTES ? b.getInt() : -1;
            throw new IOException("call denied: " + (reason == 0 ? "RPC_MISMATCH" : reason == 1 ? "AUTH_ERROR" : "reason " + reason));
        }
        if (status != RpcReplyStatus.MSG_ACCEPTED) {
            throw new IOException("reply status " + status + " is neither MSG_ACCEPTED nor MSG_DENIED");
        }
        checkAccepted(b);
    }

    /** Skips the verifier and checks the accept status; {@code b} is past the reply status. */
    private static void checkAccepted(ByteBuffer b) throws IOException {
        if (b.remaining() < 2 * Integer.BYTES) {
            throw new IOException("accepted reply truncated before its verifier");
        }
        b.getInt(); // verifier flavor: any
        int length = b.getInt();
        if (length < 0 || length > MAX_AUTH_BYTES) {
            throw new IOException("verifier length " + Integer.toUnsignedString(length) + " beyond " + MAX_AUTH_BYTES);
        }
        int padded = padded(length);
        if (b.remaining() < padded + Integer.BYTES) {
            throw new IOException("accepted reply truncated before its accept status");
        }
        b.position(b.position() + padded);
        int accept = b.getInt();
        if (accept != RpcAccepsStatus.SUCCESS) {
            throw new IOException("call accepted but not executed: " + RpcAccepsStatus.toString(accept));
        }
    }
}
