package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAccepsStatus;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcReply;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;

/**
 * The host serves programs over oncrpc4j's real TCP service on 127.0.0.1, following
 * programs and transports as they come and go, with oncrpc4j's real client.
 */
class HostServerTcpTest {

    private static final OncRpcProgram ECHO = new OncRpcProgram(EchoProgram.PROGRAM, EchoProgram.VERSION);

    private HostServer host;
    private OncRpcTcpTransport tcp;
    private OncRpcClient client;

    @BeforeEach
    void startHost() throws IOException {
        host = new HostServer(2);
        tcp = new OncRpcTcpTransport("127.0.0.1", 0);
        host.addTransport(tcp);
    }

    @AfterEach
    void stopHost() throws IOException {
        if (client != null) {
            client.close();
        }
        host.close();
    }

    private RpcTransport connect() throws IOException {
        InetSocketAddress address = tcp.localAddress();
        assertNotNull(address, "TCP transport listens");
        client = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP, address.getPort());
        return client.connect();
    }

    private static RpcReply invoke(RpcTransport transport, int procedure, XdrAble argument) throws Exception {
        CompletableFuture<RpcReply> reply = new CompletableFuture<>();
        new RpcCall(EchoProgram.PROGRAM, EchoProgram.VERSION, new RpcAuthTypeNone(), transport)
                .call(procedure, argument, new CompletionHandler<RpcReply, RpcTransport>() {
                    @Override
                    public void completed(RpcReply result, RpcTransport attachment) {
                        reply.complete(result);
                    }

                    @Override
                    public void failed(Throwable failure, RpcTransport attachment) {
                        reply.completeExceptionally(failure);
                    }
                });
        return reply.get(30, TimeUnit.SECONDS);
    }

    /**
     * The accept status of a call's answer, by name ("SUCCESS", "PROG_UNAVAIL", ...): oncrpc4j's
     * client fails a call answered with anything but SUCCESS with an OncRpcAcceptedException
     * whose message is the status name.
     */
    private static String answer(RpcTransport transport, int procedure, XdrAble argument) throws Exception {
        try {
            return RpcAccepsStatus.toString(invoke(transport, procedure, argument).getAcceptStatus());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof OncRpcAcceptedException) {
                return e.getCause().getMessage();
            }
            throw e;
        }
    }

    private static String status(int acceptStatus) {
        return RpcAccepsStatus.toString(acceptStatus);
    }

    @Test
    void programAddedAfterTheTransportStartedIsServed() throws Exception {
        RpcTransport transport = connect();
        assertEquals(status(RpcAccepsStatus.PROG_UNAVAIL), answer(transport, EchoProgram.PROC_NULL, XdrVoid.XDR_VOID));

        EchoProgram echo = new EchoProgram();
        host.addProgram(ECHO, echo);
        byte[] payload = {1, 2, 3, 4, 5, 6, 7};
        RpcReply reply = invoke(transport, EchoProgram.PROC_ECHO, new XdrOpaque(payload));
        assertTrue(reply.isAccepted());
        assertEquals(RpcAccepsStatus.SUCCESS, reply.getAcceptStatus());
        XdrOpaque echoed = new XdrOpaque();
        reply.getReplyResult(echoed);
        assertArrayEquals(payload, echoed.getOpaque());
        assertEquals(1, echo.calls.get());
    }

    @Test
    void programRemovedIsNoLongerServed() throws Exception {
        EchoProgram echo = new EchoProgram();
        host.addProgram(ECHO, echo);
        RpcTransport transport = connect();
        assertEquals(status(RpcAccepsStatus.SUCCESS), answer(transport, EchoProgram.PROC_NULL, XdrVoid.XDR_VOID));
        host.removeProgram(ECHO, echo);
        assertEquals(status(RpcAccepsStatus.PROG_UNAVAIL), answer(transport, EchoProgram.PROC_NULL, XdrVoid.XDR_VOID));
    }

    @Test
    void programFailuresGetTheirRpcAnswers() throws Exception {
        host.addProgram(ECHO, new EchoProgram());
        RpcTransport transport = connect();
        assertEquals(status(RpcAccepsStatus.SYSTEM), answer(transport, EchoProgram.PROC_THROW_RUNTIME, XdrVoid.XDR_VOID));
        assertEquals(status(RpcAccepsStatus.PROC_UNAVAIL), answer(transport, 99, XdrVoid.XDR_VOID));
    }

    @Test
    void secondProgramForTheSameNumberAndVersionIsRefused() {
        EchoProgram first = new EchoProgram();
        host.addProgram(ECHO, first);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> host.addProgram(ECHO, new EchoProgram()));
        assertTrue(refused.getMessage().contains(EchoProgram.PROGRAM + "/" + EchoProgram.VERSION), refused.getMessage());
        assertTrue(host.programs().snapshot().get(ECHO) == first, "the first stays");
    }

    @Test
    void removedTransportStopsListening() throws Exception {
        int port = tcp.localAddress().getPort();
        host.removeTransport(tcp);
        assertFalse(host.transports().contains(tcp));
        assertThrows(IOException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
    }

    /**
     * A transport removed and added again on the same port (what a Karaf reconfiguration
     * does) starts at once, and the removed one never accepts a connection after its removal:
     * Grizzly closes the listener on its selector thread, after oncrpc4j's stop returns, so
     * without waiting for that close one of these rounds met a port still listening.
     */
    @Test
    void transportReAddedOnTheSamePortStartsAtOnce() throws Exception {
        host.addProgram(ECHO, new EchoProgram());
        int port = tcp.localAddress().getPort();
        for (int round = 0; round < 25; round++) {
            host.removeTransport(tcp);
            int closedPort = port;
            assertThrows(IOException.class, () -> new Socket(InetAddress.getLoopbackAddress(), closedPort).close(),
                    "round " + round + ": the removed transport still accepted");
            tcp = new OncRpcTcpTransport("127.0.0.1", port);
            host.addTransport(tcp);
            assertEquals(port, tcp.localAddress().getPort());
        }
        assertEquals(status(RpcAccepsStatus.SUCCESS), answer(connect(), EchoProgram.PROC_NULL, XdrVoid.XDR_VOID));
    }

    @Test
    void closedHostLeavesNoWorkerThread() throws Exception {
        host.addProgram(ECHO, new EchoProgram());
        invoke(connect(), EchoProgram.PROC_NULL, XdrVoid.XDR_VOID);
        client.close();
        client = null;
        host.close();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            assertFalse(thread.getName().startsWith("rpcrdma4j-worker") && thread.isAlive(),
                    "worker thread left running: " + thread.getName());
        }
        assertThrows(IllegalStateException.class, () -> host.addTransport(new OncRpcTcpTransport("127.0.0.1", 0)));
    }

    @Test
    void settingsAreCheckedWithTheirNames() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new OncRpcTcpTransport("127.0.0.1", 70000))
                .getMessage().startsWith("port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new OncRpcTcpTransport(" ", 2049))
                .getMessage().startsWith("bindAddress"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new HostServer(0))
                .getMessage().startsWith("workerThreads"));
    }
}
