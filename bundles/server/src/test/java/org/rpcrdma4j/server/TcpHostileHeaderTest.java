package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcRejectedException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.server.tcp.RecordSizeGuard;

/**
 * A hostile client over oncrpc4j's TCP service: the lengths an RPC header claims and the size a
 * record mark claims are checked before anything is allocated, as over RDMA. oncrpc4j's own
 * decoding checks a claimed opaque length only for being negative, so a 40-byte call claiming
 * a 2 GiB credential made it allocate that much (or fail with OutOfMemoryError on the
 * connection's thread, the call never answered).
 */
class TcpHostileHeaderTest {

    private HostServer host;
    private OncRpcTcpTransport tcp;

    @BeforeEach
    void startHost() throws IOException {
        host = new HostServer(2);
        tcp = new OncRpcTcpTransport("127.0.0.1", 0);
        host.addTransport(tcp);
        host.addProgram(new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION), new EchoProgram());
    }

    @AfterEach
    void stopHost() {
        host.close();
    }

    /** One connection with record marking (RFC 5531 section 11), one record per message. */
    private final class RawConnection implements AutoCloseable {
        private final Socket socket = new Socket();
        private final DataOutputStream out;
        private final DataInputStream in;

        RawConnection() throws IOException {
            InetSocketAddress address = tcp.localAddress();
            assertNotNull(address, "the TCP transport listens");
            socket.connect(address, 5_000);
            socket.setSoTimeout(30_000);
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        void send(byte[] message) throws IOException {
            out.writeInt(0x8000_0000 | message.length);
            out.write(message);
            out.flush();
        }

        /** Raw bytes, flushed, then a pause so that the server reads them apart from what follows. */
        void sendRaw(byte[] bytes) throws IOException, InterruptedException {
            out.write(bytes);
            out.flush();
            Thread.sleep(20);
        }

        ByteBuffer receive() throws IOException {
            int mark = in.readInt();
            assertTrue(mark < 0, "a single-fragment reply (last-fragment bit set)");
            byte[] reply = new byte[mark & 0x7fff_ffff];
            in.readFully(reply);
            return ByteBuffer.wrap(reply);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static byte[] nullCall(int xid) {
        return RpcHeaders.nullAuthCall(xid, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL);
    }

    private static void assertDenied(ByteBuffer reply, int xid, int authStat) {
        int[] head = RpcHeaders.replyHead(reply);
        assertEquals(xid, head[0], "the reply's xid");
        assertEquals(RpcMessage.MSG_DENIED, head[1], "MSG_DENIED");
        assertEquals(RpcMessage.AUTH_ERROR, head[2], "AUTH_ERROR");
        assertEquals(authStat, reply.getInt(RpcMessage.REPLY_BODY_OFFSET + Integer.BYTES), "auth_stat");
    }

    private static void assertAnswered(ByteBuffer reply, int xid) {
        assertArrayEquals(new int[] {xid, RpcMessage.MSG_ACCEPTED, 0}, RpcHeaders.replyHead(reply),
                "NULL answered: MSG_ACCEPTED, SUCCESS");
    }

    /** A call of ECHO whose opaque argument is {@code data} (a multiple of 4 bytes long). */
    private static byte[] echoCall(int xid, byte[] data) {
        int words = (data.length + 3) / 4;
        int[] argument = new int[1 + words];
        argument[0] = data.length;
        ByteBuffer.wrap(data).asIntBuffer().get(argument, 1, data.length / 4);
        return RpcHeaders.nullAuthCall(xid, 2, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, argument);
    }

    private static byte[] fragment(byte[] message, int from, int to, boolean last) {
        return ByteBuffer.allocate(Integer.BYTES + to - from).putInt((last ? 0x8000_0000 : 0) | (to - from))
                .put(message, from, to - from).array();
    }

    /**
     * Record marking (RFC 5531 section 11) as the record parser reads it: a call in three
     * fragments, the pieces (a fragment header too) arriving in separate reads, is answered with
     * its argument whole; two records in one read are both answered, in order.
     */
    @Test
    void aCallInFragmentsArrivingInPiecesIsAnsweredWhole() throws Exception {
        byte[] data = new byte[40];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
        byte[] call = echoCall(31, data);
        int a = 10;
        int b = call.length - 13;
        byte[] stream = ByteBuffer.allocate(3 * Integer.BYTES + call.length).put(fragment(call, 0, a, false))
                .put(fragment(call, a, b, false)).put(fragment(call, b, call.length, true)).array();
        try (RawConnection connection = new RawConnection()) {
            // inside the first header, the first fragment, the second header, the second
            // fragment, the third header, the third fragment; then the rest
            int second = Integer.BYTES + a;
            int third = second + Integer.BYTES + (b - a);
            int[] cuts = {2, 9, second + 2, second + Integer.BYTES + 1, third + 3, stream.length - 3, stream.length};
            int from = 0;
            for (int cut : cuts) {
                connection.sendRaw(java.util.Arrays.copyOfRange(stream, from, cut));
                from = cut;
            }
            ByteBuffer reply = connection.receive();
            assertAnswered(reply, 31);
            int at = reply.limit() - Integer.BYTES - data.length;
            assertEquals(data.length, reply.getInt(at), "the echoed opaque's length");
            byte[] echoed = new byte[data.length];
            reply.get(at + Integer.BYTES, echoed);
            assertArrayEquals(data, echoed, "the argument, reassembled from three fragments");
        }
    }

    @Test
    void twoRecordsInOneReadAreBothAnsweredInOrder() throws Exception {
        byte[] first = nullCall(41);
        byte[] second = nullCall(42);
        byte[] stream = ByteBuffer.allocate(2 * Integer.BYTES + first.length + second.length)
                .put(fragment(first, 0, first.length, true)).put(fragment(second, 0, second.length, true)).array();
        try (RawConnection connection = new RawConnection()) {
            connection.sendRaw(stream);
            ByteBuffer one = connection.receive();
            ByteBuffer two = connection.receive();
            ByteBuffer to41 = one.getInt(0) == 41 ? one : two;
            assertAnswered(to41, 41);
            assertAnswered(to41 == one ? two : one, 42);
        }
    }

    @Test
    void credentialClaimingTwoGibibytesIsDeniedAndTheConnectionServesOn() throws Exception {
        long malformedBefore = host.dispatcher().malformedCalls();
        try (RawConnection connection = new RawConnection()) {
            connection.send(RpcHeaders.call(7, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)
                    .auth(RpcMessage.AUTH_SYS, 0x7fff_fff0, new byte[16]).none().bytes());
            assertDenied(connection.receive(), 7, RpcAuthStat.AUTH_BADCRED);
            connection.send(nullCall(8));
            assertAnswered(connection.receive(), 8);
        }
        assertEquals(malformedBefore + 1, host.dispatcher().malformedCalls());
    }

    @Test
    void machineNameClaimingTwoGibibytesInsideASmallCredentialIsDenied() throws Exception {
        byte[] body = RpcHeaders.authSysClaiming("m", 0x7fff_fff8, 0);
        try (RawConnection connection = new RawConnection()) {
            connection.send(RpcHeaders.call(9, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)
                    .auth(RpcMessage.AUTH_SYS, body.length, body).none().bytes());
            assertDenied(connection.receive(), 9, RpcAuthStat.AUTH_BADCRED);
            connection.send(nullCall(10));
            assertAnswered(connection.receive(), 10);
        }
    }

    @Test
    void verifierClaimingTwoGibibytesIsDenied() throws Exception {
        try (RawConnection connection = new RawConnection()) {
            connection.send(RpcHeaders.call(11, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)
                    .none().auth(RpcMessage.AUTH_NONE, 0x7fff_fffc, new byte[8]).bytes());
            assertDenied(connection.receive(), 11, RpcAuthStat.AUTH_BADVERF);
        }
    }

    /**
     * A callback (a call the server makes on the client's connection, as NFSv4.0's CB_RECALL)
     * answered with a reply whose verifier claims 2 GiB: the waiting call fails at once with a
     * rejection instead of oncrpc4j decoding what the reply claims (before: the connection was
     * closed and the callback waited for its whole timeout).
     */
    @Test
    void malformedReplyToACallbackFailsTheWaitingCallAtOnce() throws Exception {
        int callbackProgram = 0x4000_0001;
        CompletableFuture<RpcReply> callbackOutcome = new CompletableFuture<>();
        OncRpcProgram calling = new OncRpcProgram(0x2000_0777, 1);
        host.addProgram(calling, call -> {
            call.retrieveCall(XdrVoid.XDR_VOID);
            RpcTransport back = call.getTransport().getPeerTransport();
            new RpcCall(callbackProgram, 1, new RpcAuthTypeNone(), back).call(0, XdrVoid.XDR_VOID,
                    new CompletionHandler<RpcReply, RpcTransport>() {
                        @Override
                        public void completed(RpcReply reply, RpcTransport attachment) {
                            callbackOutcome.complete(reply);
                        }

                        @Override
                        public void failed(Throwable failure, RpcTransport attachment) {
                            callbackOutcome.completeExceptionally(failure);
                        }
                    }, 60, TimeUnit.SECONDS);
            call.reply(XdrVoid.XDR_VOID);
        });
        long malformedBefore = host.dispatcher().malformedCalls();
        try (RawConnection connection = new RawConnection()) {
            connection.send(RpcHeaders.nullAuthCall(21, 2, 0x2000_0777, 1, 0));
            ByteBuffer first = connection.receive();
            ByteBuffer second = connection.receive();
            ByteBuffer callback = first.getInt(4) == RpcMessage.CALL ? first : second;
            ByteBuffer reply = callback == first ? second : first;
            assertAnswered(reply, 21);
            assertEquals(callbackProgram, callback.getInt(12), "the callback's program");
            int callbackXid = callback.getInt(0);
            connection.send(RpcHeaders.reply(callbackXid, RpcMessage.MSG_ACCEPTED)
                    .auth(RpcMessage.AUTH_NONE, 0x7fff_fffc, new byte[8]).words(0).bytes());
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> callbackOutcome.get(30, TimeUnit.SECONDS),
                    "the callback fails (a TimeoutException here: it still waits for its 60 s timeout)");
            assertInstanceOf(OncRpcRejectedException.class, failed.getCause(), failed.toString());
            connection.send(nullCall(22));
            assertAnswered(connection.receive(), 22);
        }
        assertEquals(malformedBefore + 1, host.dispatcher().malformedCalls());
    }

    /**
     * A record mark claiming more than a call may hold: the server closes the connection at
     * once (as Linux's svc does for a record beyond its largest message) instead of buffering
     * whatever the peer sends; other connections are served.
     */
    @Test
    void recordClaimingMoreThanTheLargestCallClosesTheConnection() throws Exception {
        try (RawConnection hostile = new RawConnection()) {
            hostile.out.writeInt(0x8000_0000 | (RecordSizeGuard.MAX_RECORD_BYTES + 4));
            hostile.out.write(nullCall(12));
            hostile.out.flush();
            assertClosedByServer(hostile);
        }
        try (RawConnection hostile = new RawConnection()) {
            // fragments that each fit, adding up to more than the limit
            int fragment = 1 << 20;
            byte[] filler = new byte[fragment];
            for (int sent = 0; sent <= RecordSizeGuard.MAX_RECORD_BYTES; sent += fragment) {
                try {
                    hostile.out.writeInt(fragment);
                    hostile.out.write(filler);
                } catch (IOException closed) {
                    break; // the server closed the connection while this fragment was sent
                }
            }
            assertClosedByServer(hostile);
        }
        try (RawConnection connection = new RawConnection()) {
            connection.send(nullCall(13));
            assertAnswered(connection.receive(), 13);
        }
    }

    private static void assertClosedByServer(RawConnection connection) throws IOException {
        try {
            int read = connection.in.read();
            assertEquals(-1, read, "the server closes the connection, it sends nothing");
        } catch (EOFException | java.net.SocketException closed) {
            // reset by the server: closed as well
        } catch (SocketTimeoutException stillOpen) {
            throw new AssertionError("the server kept the connection open 30 s after a record beyond its limit",
                    stillOpen);
        }
    }
}
