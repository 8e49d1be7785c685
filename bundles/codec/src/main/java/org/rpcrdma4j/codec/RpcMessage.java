package org.rpcrdma4j.codec;

import java.nio.ByteBuffer;

/**
 * RpcMessage - constants of the ONC RPC version 2 message header (RFC 5531 §9), and
 * allocation-free readers and writers of it over a {@link ByteBuffer}.
 *
 * <p>A call header (RFC 5531 §9, {@code call_body}):
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              xid                              |  XID_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        msg_type (CALL)                        |  MSG_TYPE_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          rpcvers (2)                          |  RPCVERS_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                             prog                              |  PROG_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                             vers                              |  VERS_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                             proc                              |  PROC_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  cred: flavor, length, body (0..400 bytes, padded)            |  CREDENTIAL_OFFSET
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  verf: flavor, length, body (0..400 bytes, padded)            |  verifierOffset()
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  procedure arguments ...                                      |  argumentsOffset()
 * </pre>
 *
 * <p>A reply header (RFC 5531 §9, {@code reply_body}):
 *
 * <pre>
 *   xid | REPLY | MSG_ACCEPTED | verf: flavor, length, body | accept_stat [| low | high] | results
 *               | MSG_DENIED   | RPC_MISMATCH | low | high
 *                              | AUTH_ERROR   | auth_stat
 * </pre>
 *
 * <p>Readers take the message between the buffer's position and its limit, read with absolute
 * gets, change neither position nor limit, and answer {@link #NONE} for a message that is too
 * short or not what they read; they never throw for any content. Writers put at the buffer's
 * position and advance it, like the relative {@code put} methods of {@link ByteBuffer}.
 * Nothing is allocated. Threading: stateless, any thread.
 */
public final class RpcMessage {

    /** What a reader answers for a message too short, of another kind, or malformed. */
    public static final int NONE = -1;

    /** msg_type of a call (RFC 5531 §9). */
    public static final int CALL = 0;
    /** msg_type of a reply. */
    public static final int REPLY = 1;

    /** The RPC protocol version, rpcvers (RFC 5531 §9). */
    public static final int RPC_VERSION = 2;

    /** reply_stat: the call was accepted; an accept_stat follows the verifier. */
    public static final int MSG_ACCEPTED = 0;
    /** reply_stat: the call was denied; a reject_stat follows. */
    public static final int MSG_DENIED = 1;

    /** accept_stat: the procedure ran; its results follow. */
    public static final int SUCCESS = 0;
    /** accept_stat: the program is not served here. */
    public static final int PROG_UNAVAIL = 1;
    /** accept_stat: the version is not served; the lowest and highest served follow. */
    public static final int PROG_MISMATCH = 2;
    /** accept_stat: the program has no such procedure. */
    public static final int PROC_UNAVAIL = 3;
    /** accept_stat: the arguments could not be decoded. */
    public static final int GARBAGE_ARGS = 4;
    /** accept_stat: a memory allocation failure or the like. */
    public static final int SYSTEM_ERR = 5;

    /** reject_stat: the RPC version is not 2; the lowest and highest supported follow. */
    public static final int RPC_MISMATCH = 0;
    /** reject_stat: the caller could not be authenticated; an auth_stat follows. */
    public static final int AUTH_ERROR = 1;

    /** auth_stat (RFC 5531 §9): success. */
    public static final int AUTH_OK = 0;
    /** auth_stat: bad credential (seal broken). */
    public static final int AUTH_BADCRED = 1;
    /** auth_stat: the client must begin a new session. */
    public static final int AUTH_REJECTEDCRED = 2;
    /** auth_stat: bad verifier (seal broken). */
    public static final int AUTH_BADVERF = 3;
    /** auth_stat: the verifier expired or was replayed. */
    public static final int AUTH_REJECTEDVERF = 4;
    /** auth_stat: rejected for security reasons. */
    public static final int AUTH_TOOWEAK = 5;

    /** auth_flavor: no authentication (RFC 5531 §8.1). */
    public static final int AUTH_NONE = 0;
    /** auth_flavor: UNIX-style credential (RFC 5531 appendix A). */
    public static final int AUTH_SYS = 1;
    /** auth_flavor: RPCSEC_GSS (RFC 2203). */
    public static final int RPCSEC_GSS = 6;

    /** The longest opaque_auth body in bytes (RFC 5531 §8.2, MAX_AUTH_BYTES). */
    public static final int MAX_AUTH_BYTES = 400;

    /** Offset of the xid, in calls and replies. */
    public static final int XID_OFFSET = 0;
    /** Offset of msg_type, in calls and replies. */
    public static final int MSG_TYPE_OFFSET = XID_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of rpcvers in a call. */
    public static final int RPCVERS_OFFSET = MSG_TYPE_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of prog in a call. */
    public static final int PROG_OFFSET = RPCVERS_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of vers in a call. */
    public static final int VERS_OFFSET = PROG_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of proc in a call. */
    public static final int PROC_OFFSET = VERS_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of the credential's flavor in a call; its body length follows. */
    public static final int CREDENTIAL_OFFSET = PROC_OFFSET + Xdr.UNIT_BYTES;
    /** Bytes of the shortest message that says its type: xid and msg_type. */
    public static final int TYPED_MESSAGE_BYTES = MSG_TYPE_OFFSET + Xdr.UNIT_BYTES;
    /** Bytes of a call from the xid through the procedure. */
    public static final int CALL_FIXED_BYTES = CREDENTIAL_OFFSET;

    /** Offset of reply_stat in a reply. */
    public static final int REPLY_STAT_OFFSET = MSG_TYPE_OFFSET + Xdr.UNIT_BYTES;
    /** Offset of the verifier in an accepted reply, and of reject_stat in a denied one. */
    public static final int REPLY_BODY_OFFSET = REPLY_STAT_OFFSET + Xdr.UNIT_BYTES;

    /** Bytes of an opaque_auth before its body: flavor and body length. */
    public static final int AUTH_HEAD_BYTES = 2 * Xdr.UNIT_BYTES;

    /** Bytes of a call header whose credential and verifier are AUTH_NONE with empty bodies. */
    public static final int NULL_AUTH_CALL_HEADER_BYTES = CALL_FIXED_BYTES + 2 * AUTH_HEAD_BYTES;
    /**
     * Bytes of an accepted reply header, through accept_stat, whose verifier is AUTH_NONE with an
     * empty body: where a successful reply's results begin.
     */
    public static final int NULL_AUTH_REPLY_HEADER_BYTES = REPLY_BODY_OFFSET + AUTH_HEAD_BYTES + Xdr.UNIT_BYTES;
    /** Bytes of a denied reply with reject_stat AUTH_ERROR: xid, REPLY, MSG_DENIED, AUTH_ERROR, auth_stat. */
    public static final int AUTH_ERROR_REPLY_BYTES = REPLY_BODY_OFFSET + 2 * Xdr.UNIT_BYTES;

    private RpcMessage() {
    }

    /**
     * messageType() - the msg_type of a call or reply.
     *
     * @param message the message, from its xid at the position to the limit
     * @return {@link #CALL}, {@link #REPLY}, any other word found there, or {@link #NONE} when the
     *         message ends before it
     */
    public static int messageType(ByteBuffer message) {
        return wordAt(message, MSG_TYPE_OFFSET);
    }

    /**
     * isCall() - tell whether a message is long enough to hold msg_type and is a call.
     *
     * @param message the message, from its xid at the position to the limit
     * @return true for a call
     */
    public static boolean isCall(ByteBuffer message) {
        return messageType(message) == CALL;
    }

    /**
     * isReply() - tell whether a message is long enough to hold msg_type and is a reply.
     *
     * @param message the message, from its xid at the position to the limit
     * @return true for a reply
     */
    public static boolean isReply(ByteBuffer message) {
        return messageType(message) == REPLY;
    }

    /**
     * verifierOffset() - where a call's verifier begins, past its credential.
     *
     * @param call the message, from its xid at the position to the limit
     * @return the offset relative to the position, or {@link #NONE} when the message is not a
     *         call, or its credential claims more than {@link #MAX_AUTH_BYTES} or more bytes than
     *         the message holds
     */
    public static int verifierOffset(ByteBuffer call) {
        if (!isCall(call)) {
            return NONE;
        }
        return skipOpaqueAuth(call, CREDENTIAL_OFFSET);
    }

    /**
     * argumentsOffset() - where a call's procedure arguments begin, past its verifier.
     *
     * @param call the message, from its xid at the position to the limit
     * @return the offset relative to the position, or {@link #NONE} when the message is not a
     *         call, or its credential or verifier is too long or runs past the message
     */
    public static int argumentsOffset(ByteBuffer call) {
        int verifier = verifierOffset(call);
        return verifier == NONE ? NONE : skipOpaqueAuth(call, verifier);
    }

    /**
     * acceptStatOffset() - where an accepted reply's accept_stat lies, past its verifier.
     *
     * @param reply the message, from its xid at the position to the limit
     * @return the offset relative to the position, or {@link #NONE} when the message is not an
     *         accepted reply, or its verifier is too long, or the message ends before accept_stat
     */
    public static int acceptStatOffset(ByteBuffer reply) {
        if (!isReply(reply) || wordAt(reply, REPLY_STAT_OFFSET) != MSG_ACCEPTED) {
            return NONE;
        }
        int status = skipOpaqueAuth(reply, REPLY_BODY_OFFSET);
        return status != NONE && hasWord(reply, status) ? status : NONE;
    }

    /**
     * resultsOffset() - where the results of an accepted reply with accept_stat SUCCESS begin.
     *
     * @param reply the message, from its xid at the position to the limit
     * @return the offset relative to the position, or {@link #NONE} for any other reply, a call
     *         or a malformed message
     */
    public static int resultsOffset(ByteBuffer reply) {
        int status = acceptStatOffset(reply);
        if (status == NONE || reply.getInt(reply.position() + status) != SUCCESS) {
            return NONE;
        }
        return status + Xdr.UNIT_BYTES;
    }

    /**
     * putCallHeader() - write a call header with AUTH_NONE credential and verifier, both with
     * empty bodies: {@link #NULL_AUTH_CALL_HEADER_BYTES} bytes at the position, which advances.
     *
     * @param buffer the buffer, with at least that many bytes remaining
     * @return {@code buffer}
     * @throws java.nio.BufferOverflowException when fewer bytes remain
     */
    public static ByteBuffer putCallHeader(ByteBuffer buffer, int xid, int prog, int vers, int proc) {
        return buffer.putInt(xid).putInt(CALL).putInt(RPC_VERSION).putInt(prog).putInt(vers).putInt(proc)
                .putInt(AUTH_NONE).putInt(0)
                .putInt(AUTH_NONE).putInt(0);
    }

    /**
     * putAcceptedReplyHeader() - write an accepted reply header with an AUTH_NONE verifier with an
     * empty body, through accept_stat: {@link #NULL_AUTH_REPLY_HEADER_BYTES} bytes at the
     * position, which advances. A SUCCESS reply's results follow; PROG_MISMATCH's low and high
     * are the caller's to add.
     *
     * @param buffer the buffer, with at least that many bytes remaining
     * @param acceptStat {@link #SUCCESS} to {@link #SYSTEM_ERR}
     * @return {@code buffer}
     * @throws java.nio.BufferOverflowException when fewer bytes remain
     */
    public static ByteBuffer putAcceptedReplyHeader(ByteBuffer buffer, int xid, int acceptStat) {
        return buffer.putInt(xid).putInt(REPLY).putInt(MSG_ACCEPTED).putInt(AUTH_NONE).putInt(0).putInt(acceptStat);
    }

    /**
     * putAuthErrorReply() - write a whole denied reply with reject_stat AUTH_ERROR:
     * {@link #AUTH_ERROR_REPLY_BYTES} bytes at the position, which advances.
     *
     * @param buffer the buffer, with at least that many bytes remaining
     * @param authStat why authentication failed, {@link #AUTH_BADCRED} and on
     * @return {@code buffer}
     * @throws java.nio.BufferOverflowException when fewer bytes remain
     */
    public static ByteBuffer putAuthErrorReply(ByteBuffer buffer, int xid, int authStat) {
        return buffer.putInt(xid).putInt(REPLY).putInt(MSG_DENIED).putInt(AUTH_ERROR).putInt(authStat);
    }

    /**
     * toString() - name a msg_type.
     *
     * @return "CALL", "REPLY", or the number for any other value
     */
    public static String toString(int msgType) {
        return switch (msgType) {
            case CALL -> "CALL";
            case REPLY -> "REPLY";
            default -> "msg_type(" + msgType + ")";
        };
    }

    /** @return the offset just past the opaque_auth at {@code at}, or NONE when it does not fit */
    private static int skipOpaqueAuth(ByteBuffer message, int at) {
        if (!hasWord(message, at + Xdr.UNIT_BYTES)) {
            return NONE;
        }
        int length = message.getInt(message.position() + at + Xdr.UNIT_BYTES);
        if (Integer.compareUnsigned(length, MAX_AUTH_BYTES) > 0) {
            return NONE;
        }
        // at is within the message and length <= 400: no overflow.
        int end = at + AUTH_HEAD_BYTES + (int) Xdr.roundUp(length);
        return end <= message.remaining() ? end : NONE;
    }

    /** @return the word at {@code at}, or NONE when the message ends before it */
    private static int wordAt(ByteBuffer message, int at) {
        return hasWord(message, at) ? message.getInt(message.position() + at) : NONE;
    }

    /** @return true when four bytes lie at {@code at} (not negative) within the message */
    private static boolean hasWord(ByteBuffer message, int at) {
        return at <= message.remaining() - Xdr.UNIT_BYTES;
    }
}
