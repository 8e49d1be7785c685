package org.rpcrdma4j.shell;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

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
    /** Byte offset of the opaque argument's bytes (after its length word): its XDR position. */
    static final int ARGUMENT_OFFSET = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES;

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
        int length = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES
                + (argumentBytes == 0 ? 0 : Integer.BYTES + (int) Xdr.roundUp(argumentBytes));
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
        RpcMessage.putCallHeader(b, xid, program, version, NULL_PROCEDURE);
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
        if (b.remaining() < RpcMessage.REPLY_BODY_OFFSET) {
            throw new IOException("reply of " + b.remaining() + " bytes is too short for an RPC reply header");
        }
        int replyXid = b.getInt(RpcMessage.XID_OFFSET);
        if (replyXid != xid) {
            throw new IOException("reply xid 0x" + Integer.toHexString(replyXid) + " does not match the call's 0x"
                    + Integer.toHexString(xid));
        }
        if (!RpcMessage.isReply(b)) {
            throw new IOException("message type " + RpcMessage.toString(RpcMessage.messageType(b)) + " is not REPLY");
        }
        int status = b.getInt(RpcMessage.REPLY_STAT_OFFSET);
        if (status == RpcMessage.MSG_DENIED) {
            int reason = b.remaining() >= RpcMessage.REPLY_BODY_OFFSET + Integer.BYTES
                    ? b.getInt(RpcMessage.REPLY_BODY_OFFSET) : -1;
            throw new IOException("call denied: " + (reason == RpcMessage.RPC_MISMATCH ? "RPC_MISMATCH"
                    : reason == RpcMessage.AUTH_ERROR ? "AUTH_ERROR" : "reason " + reason));
        }
        if (status != RpcMessage.MSG_ACCEPTED) {
            throw new IOException("reply status " + status + " is neither MSG_ACCEPTED nor MSG_DENIED");
        }
        int acceptStat = RpcMessage.acceptStatOffset(b);
        if (acceptStat == RpcMessage.NONE) {
            throw new IOException("accepted reply truncated before its accept status, or its verifier claims more than "
                    + RpcMessage.MAX_AUTH_BYTES + " bytes");
        }
        int accept = b.getInt(acceptStat);
        if (accept != RpcMessage.SUCCESS) {
            throw new IOException("call accepted but not executed: " + RpcAccepsStatus.toString(accept));
        }
    }
}
