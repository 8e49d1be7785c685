package org.rpcrdma4j.benchmarks.hosted;

import java.nio.ByteBuffer;

import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * BenchRpc - the benchmark's ONC RPC messages (RFC 5531), built by hand so that both transports
 * carry exactly the same bytes: calls with AUTH_NONE, the replies they must get, and the checks.
 *
 * <pre>
 *  call:  xid | CALL=0 | rpcvers=2 | prog | vers | proc | cred 0,0 | verf 0,0 | arguments
 *         0     4        8           12     16     20     24         32         40
 *  reply: xid | REPLY=1 | MSG_ACCEPTED=0 | verf 0,0 | SUCCESS=0 | results
 *         0     4         8                12         20          24
 * </pre>
 *
 * <p>Two checks: {@link #isAnswered} on the hot path (xid, accepted SUCCESS, the length and the
 * first result word: no copy, no allocation); {@link #expectedReply} for the byte-exact check
 * of the calls made in setup and teardown.
 */
final class BenchRpc {
    /** Offset of the results in a reply: {@link #isAnswered} checks every word before it. */
    static final int RESULTS_OFFSET = RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES;

    private BenchRpc() {
    }

    /** @return n bytes of the READ pattern, byte i being {@link #patternByte(int)} */
    static byte[] pattern(int n) {
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = patternByte(i);
        }
        return data;
    }

    /** @return byte i of the READ pattern (not periodic in 256, so a shifted copy does not match) */
    static byte patternByte(int i) {
        return (byte) (i * 31 + (i >>> 8) * 7 + 1);
    }

    /** @return a NULL call, position 0, xid to be set with {@link #setXid} */
    static ByteBuffer nullCall() {
        return header(BenchProgram.NULL, 0).flip();
    }

    /** @return an ECHO call of {@code data}, XDR-padded */
    static ByteBuffer echoCall(byte[] data) {
        ByteBuffer b = header(BenchProgram.ECHO, 4 + (int) Xdr.roundUp(data.length));
        b.putInt(data.length).put(data);
        return b.position(b.capacity()).flip();
    }

    /** @return a READ call asking for {@code count} bytes */
    static ByteBuffer readCall(int count) {
        return header(BenchProgram.READ, 4).putInt(count).flip();
    }

    /** @return a WRITE call of {@code data}, XDR-padded; its data starts at {@link #WRITE_DATA_OFFSET} */
    static ByteBuffer writeCall(byte[] data) {
        ByteBuffer b = header(BenchProgram.WRITE, 4 + (int) Xdr.roundUp(data.length));
        b.putInt(data.length).put(data);
        return b.position(b.capacity()).flip();
    }

    /** Where a WRITE call's data begins (after its length word): its read chunk's XDR position over RDMA. */
    static final int WRITE_DATA_OFFSET = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES;

    /** setXid() - the next call's xid, written in place (the buffer MUST NOT be in flight). */
    static void setXid(ByteBuffer call, int xid) {
        call.putInt(RpcMessage.XID_OFFSET, xid);
    }

    /** @return results for an opaque reply: length word, data, padding */
    static byte[] opaqueResults(byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 + (int) Xdr.roundUp(data.length));
        b.putInt(data.length).put(data);
        return b.array();
    }

    /** @return the complete reply a call with this xid must get: accepted, SUCCESS, then {@code results} */
    static byte[] expectedReply(int xid, byte[] results) {
        ByteBuffer b = ByteBuffer.allocate(RESULTS_OFFSET + results.length);
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).put(results);
        return b.array();
    }

    /**
     * isAnswered() - the hot-path check of a reply: its xid, an accepted SUCCESS with an empty
     * AUTH_NONE verifier, its length, and (when {@code firstResult} is not -1) the first result
     * word, e.g. an opaque's length.
     *
     * <p>Assumptions: {@code reply} holds the reply from index 0 (absolute gets, nothing moved).
     */
    static boolean isAnswered(ByteBuffer reply, int length, int xid, int expectedLength, int firstResult) {
        return isAnswered(reply, 0, length, xid, expectedLength, firstResult);
    }

    /** {@link #isAnswered(ByteBuffer, int, int, int, int)} of a reply that starts at {@code at}. */
    static boolean isAnswered(ByteBuffer reply, int at, int length, int xid, int expectedLength, int firstResult) {
        return length == expectedLength && length >= RESULTS_OFFSET
                && reply.getInt(at + RpcMessage.XID_OFFSET) == xid
                && reply.getInt(at + RpcMessage.MSG_TYPE_OFFSET) == RpcMessage.REPLY
                && reply.getInt(at + RpcMessage.REPLY_STAT_OFFSET) == RpcMessage.MSG_ACCEPTED
                && reply.getInt(at + RpcMessage.REPLY_BODY_OFFSET) == RpcMessage.AUTH_NONE
                && reply.getInt(at + RpcMessage.REPLY_BODY_OFFSET + Integer.BYTES) == 0
                && reply.getInt(at + RESULTS_OFFSET - Integer.BYTES) == RpcMessage.SUCCESS
                && (firstResult == -1 || reply.getInt(at + RESULTS_OFFSET) == firstResult);
    }

    private static ByteBuffer header(int procedure, int argumentBytes) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + argumentBytes);
        return RpcMessage.putCallHeader(b, 0, BenchProgram.PROGRAM, BenchProgram.VERSION, procedure);
    }
}
