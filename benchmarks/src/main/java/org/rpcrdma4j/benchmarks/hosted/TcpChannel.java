package org.rpcrdma4j.benchmarks.hosted;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * TcpChannel - ONC RPC over one blocking TCP socket with record marking (RFC 5531 §11): each call
 * one record in one {@code write}, replies read into one reused buffer and checked in place.
 *
 * <p>Why not oncrpc4j's own client: it is a Grizzly NIO client (selector thread, a future per
 * call, XDR decoding into objects), whose cost would be added to the TCP side only, while the
 * RDMA side's client takes the bytes as they are. This is the thinnest client TCP allows, so the
 * comparison is of the server transports, not of the clients. It sends exactly the bytes the
 * RDMA client sends.
 *
 * <p>Calls in flight: all are written before any reply is read; oncrpc4j may answer them in any
 * order, so replies are matched by xid (each expected once).
 */
final class TcpChannel implements RpcChannel {
    private static final int MAX_IN_FLIGHT = 32;
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final byte[] record;
    private final ByteBuffer recordView;
    private final byte[] reply;
    private final ByteBuffer replyView;

    private TcpChannel(Socket socket, int maxCall, int maxReply) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
        this.record = new byte[4 + maxCall];
        this.recordView = ByteBuffer.wrap(record);
        this.reply = new byte[maxReply];
        this.replyView = ByteBuffer.wrap(reply);
    }

    /**
     * connect() - a blocking TCP connection with TCP_NODELAY (as oncrpc4j's server sets it).
     *
     * @param maxCall the longest call message to send
     * @param maxReply the longest reply to accept; a longer one fails the call with an IOException
     */
    static TcpChannel connect(InetSocketAddress server, int maxCall, int maxReply) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout((int) CALL_TIMEOUT.toMillis());
            socket.connect(server, (int) CALL_TIMEOUT.toMillis());
            return new TcpChannel(socket, maxCall, maxReply);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public int run(Workload workload, int xid) throws IOException {
        int n = workload.inFlight();
        if (n > MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("at most " + MAX_IN_FLIGHT + " calls in flight: " + n);
        }
        for (int i = 0; i < n; i++) {
            send(workload, i, xid + i);
        }
        int failures = 0;
        int seen = 0;
        for (int i = 0; i < n; i++) {
            int length = receive();
            int slot = replyView.getInt(0) - xid;
            if (slot < 0 || slot >= n || (seen & (1 << slot)) != 0
                    || !BenchRpc.isAnswered(replyView, length, xid + slot, workload.replyLength, workload.firstResult)) {
                failures++;
            } else {
                seen |= 1 << slot;
            }
        }
        return failures;
    }

    @Override
    public byte[] wholeReply(Workload workload, int xid) throws IOException {
        send(workload, 0, xid);
        int length = receive();
        byte[] whole = new byte[length];
        System.arraycopy(reply, 0, whole, 0, length);
        return whole;
    }

    private void send(Workload workload, int slot, int xid) throws IOException {
        ByteBuffer call = workload.calls[slot];
        workload.beforeSend.accept(call);
        BenchRpc.setXid(call, xid);
        int length = call.remaining();
        recordView.putInt(0, 0x8000_0000 | length);
        call.get(0, record, 4, length);
        out.write(record, 0, 4 + length);
    }

    /** @return the length of the record read into {@link #reply}, its fragments joined */
    private int receive() throws IOException {
        int length = 0;
        boolean last = false;
        while (!last) {
            int mark = in.readInt();
            last = mark < 0;
            int fragment = mark & 0x7fff_ffff;
            if (fragment > reply.length - length) {
                throw new IOException("reply longer than " + reply.length + " bytes");
            }
            in.readFully(reply, length, fragment);
            length += fragment;
        }
        return length;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
