package org.rpcrdma4j.transport.oncrpc;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * RpcWire - hand-built ONC RPC messages for the tests, and a plain ONC RPC over TCP client
 * (record marking, RFC 5531 §11) to compare the same calls answered over TCP.
 */
final class RpcWire {
    private RpcWire() {
    }

    /** @return an RPC call message with AUTH_NONE credentials and the given argument bytes */
    static ByteBuffer call(int xid, int program, int version, int procedure, byte[] arguments) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + arguments.length);
        RpcMessage.putCallHeader(b, xid, program, version, procedure).put(arguments);
        return b.flip();
    }

    static byte[] intArgument(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    static byte[] opaqueArgument(byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 + (int) Xdr.roundUp(data.length));
        b.putInt(data.length).put(data);
        return b.array();
    }

    /** @return the accept status of a reply (0 SUCCESS, 1 PROG_UNAVAIL...), or -1 - reply_stat when denied */
    static int acceptStatus(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply);
        int replyStat = b.getInt(RpcMessage.REPLY_STAT_OFFSET);
        if (replyStat != RpcMessage.MSG_ACCEPTED) {
            return -1 - replyStat;
        }
        return b.getInt(RpcMessage.acceptStatOffset(b));
    }

    /** @return where the results of an accepted reply start */
    static int resultsOffset(byte[] reply) {
        return RpcMessage.resultsOffset(ByteBuffer.wrap(reply));
    }

    /**
     * whole() - the complete RPC reply an RDMA reply stands for: the inline (or reply chunk) body
     * with the first write chunk's data put back after the DDP item's length word, as RFC 8166
     * §3.4.5 has the client do.
     */
    static byte[] whole(RpcReply reply, boolean ddpItemAtResults) {
        ByteBuffer body = reply.body().duplicate();
        byte[] reduced = new byte[body.remaining()];
        body.get(reduced);
        if (reply.writeChunkCount() == 0 || !ddpItemAtResults || reply.writeChunk(0).remaining() == 0) {
            return reduced;
        }
        ByteBuffer data = reply.writeChunk(0).duplicate();
        int at = resultsOffset(reduced) + 4;
        int padded = (int) Xdr.roundUp(data.remaining());
        ByteBuffer whole = ByteBuffer.allocate(reduced.length + padded);
        whole.put(reduced, 0, at).put(data).position(at + padded).put(reduced, at, reduced.length - at);
        return whole.array();
    }

    /** A blocking ONC RPC over TCP client for one connection. */
    static final class TcpClient implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final DataOutputStream out;

        TcpClient(InetSocketAddress server) throws IOException {
            socket = new Socket(server.getAddress(), server.getPort());
            socket.setSoTimeout(30_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        }

        byte[] call(ByteBuffer message) throws IOException {
            byte[] bytes = new byte[message.remaining()];
            message.duplicate().get(bytes);
            out.writeInt(0x8000_0000 | bytes.length);
            out.write(bytes);
            out.flush();
            ByteBuffer reply = ByteBuffer.allocate(0);
            boolean last = false;
            while (!last) {
                int mark = in.readInt();
                last = mark < 0;
                byte[] fragment = new byte[mark & 0x7fff_ffff];
                in.readFully(fragment);
                reply = ByteBuffer.allocate(reply.capacity() + fragment.length).put(reply.array()).put(fragment);
            }
            return reply.array();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
