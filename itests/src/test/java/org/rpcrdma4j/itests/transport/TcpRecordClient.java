package org.rpcrdma4j.itests.transport;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * A blocking ONC RPC over TCP client on one connection, with record marking (RFC 5531 §11):
 * each call is sent as one last fragment, the reply's fragments are read until the last one.
 * One call at a time; not thread-safe.
 */
final class TcpRecordClient implements AutoCloseable {
    private static final int LAST_FRAGMENT = 0x8000_0000;
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    TcpRecordClient(InetSocketAddress server) throws IOException {
        socket = new Socket(server.getAddress(), server.getPort());
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** @return the whole reply record to the call message (its remaining bytes) */
    byte[] call(ByteBuffer message) throws IOException {
        byte[] bytes = EchoWire.bytes(message);
        out.writeInt(LAST_FRAGMENT | bytes.length);
        out.write(bytes);
        out.flush();
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        boolean last = false;
        while (!last) {
            int mark = in.readInt();
            last = (mark & LAST_FRAGMENT) != 0;
            byte[] fragment = new byte[mark & ~LAST_FRAGMENT];
            in.readFully(fragment);
            reply.write(fragment);
        }
        return reply.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
