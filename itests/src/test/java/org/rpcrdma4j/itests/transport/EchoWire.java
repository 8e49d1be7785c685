package org.rpcrdma4j.itests.transport;

import java.nio.ByteBuffer;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * The ONC RPC messages of the transport tests (RFC 5531 §9), built by hand so that a reply can be
 * checked byte for byte: calls with AUTH_NONE credentials and verifier, an optional opaque
 * argument, and the exact accepted reply the host server must send for them.
 *
 * <pre>
 *  call:  xid | CALL=0 | rpcvers=2 | prog | vers | proc | AUTH_NONE, 0 | AUTH_NONE, 0   (10 words)
 *         [ opaque length | opaque bytes, padded to a word ]        (with an argument only)
 *  reply: xid | REPLY=1 | MSG_ACCEPTED=0 | AUTH_NONE, 0 | SUCCESS=0 [ | opaque length | bytes, padded ]
 * </pre>
 */
final class EchoWire {
    /** The echo program of these tests (user-defined range, RFC 5531 §7.3). */
    static final int PROGRAM = 0x2000_0781;
    static final int VERSION = 1;
    static final int PROC_NULL = 0;
    static final int PROC_ECHO = 1;
    /** NFS (RFC 1813), for its NULL procedure. */
    static final int NFS_PROGRAM = 100003;
    static final int NFS_VERSION = 3;

    /** Byte offset of an opaque argument's bytes, after its length word: its XDR position. */
    static final int ARGUMENT_OFFSET = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES;

    private EchoWire() {
    }

    /** @return a call message (position 0, limit at its end) with void arguments */
    static ByteBuffer call(int xid, int program, int version, int procedure) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES);
        return RpcMessage.putCallHeader(b, xid, program, version, procedure).flip();
    }

    /** @return an ECHO call of {@link #PROGRAM} whose argument is the opaque {@code data} */
    static ByteBuffer echoCall(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(ARGUMENT_OFFSET + (int) Xdr.roundUp(data.length));
        RpcMessage.putCallHeader(b, xid, PROGRAM, VERSION, PROC_ECHO).putInt(data.length).put(data);
        return b.position(0);
    }

    /**
     * @return an ECHO call whose argument bytes the server pulls with RDMA READ: a read chunk at
     *         the argument's XDR position, the rest of the message inline
     */
    static CallRequest echoWithReadChunk(int xid, byte[] data) {
        return CallRequest.builder(echoCall(xid, data)).readChunk(ARGUMENT_OFFSET, data.length).build();
    }

    /** @return the exact reply to a successful call with void results */
    static byte[] voidReply(int xid) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        return RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).array();
    }

    /** @return the exact reply to an ECHO of {@code data} */
    static byte[] echoReply(int xid, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES
                + (int) Xdr.roundUp(data.length));
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(data.length).put(data);
        return b.array();
    }

    /** @return {@code length} bytes of a pattern that differs for every seed */
    static byte[] pattern(int seed, int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (seed * 31 + i * 7 + (i >>> 8));
        }
        return data;
    }

    /** @return the remaining bytes of a buffer, which is left as it was */
    static byte[] bytes(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }
}
