package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.SynchronousBundleListener;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * Hot-plug of the RDMA transport: stopping its bundle withdraws the "rdma" transport (services
 * gone, its connection closed, new connections refused) while the host server and its TCP
 * transport go on serving on the very same TCP connection; starting the bundle serves RDMA
 * again. The server bundle is never stopped, started or updated meanwhile.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotPlugIT extends TransportTestSupport {

    private int xid = 0x7000;

    @Test
    public void stoppingTheTransportBundleWithdrawsOnlyRdmaAndStartingItServesAgain() throws Exception {
        RdmaTransportControl before = awaitRdma();
        HostedTransport tcpTransport = awaitTcp();
        Bundle server = bundle(SERVER_BUNDLE);
        long serverModified = server.getLastModified();
        Object tcpServiceId = tcpReference().getProperty(Constants.SERVICE_ID);
        List<String> serverEvents = new CopyOnWriteArrayList<>();
        SynchronousBundleListener serverWatch = event -> {
            if (event.getBundle().getBundleId() == server.getBundleId()) {
                serverEvents.add(String.valueOf(event.getType()));
            }
        };
        bundleContext.addBundleListener(serverWatch);
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        try (TcpRecordClient tcp = new TcpRecordClient(tcpTransport.localAddress())) {
            assertEchoOverTcp(tcp);
            InetSocketAddress rdmaAddress = before.localAddress();
            try (RpcRdmaClient client = connect(before)) {
                assertEchoOverRdma(client);

                bundle(TRANSPORT_BUNDLE).stop();
                assertEquals("no RdmaTransportControl service", List.of(),
                        references(RdmaTransportControl.class, c -> true));
                assertEquals("no HostedTransport named rdma", List.of(),
                        references(HostedTransport.class, t -> "rdma".equals(t.name())));
                String closed = failureOf("a call on the open RDMA connection",
                        () -> client.call(CallRequest.builder(EchoWire.echoCall(++xid, new byte[100])).build(), CALL_TIMEOUT));
                String refused = failureOf("a new RDMA connection", () -> RpcRdmaClient.connect(loopbackProvider(),
                        rdmaAddress, ClientConfig.builder().progressThread(true).build()).close());
                System.out.println("With the transport bundle stopped: " + closed + "; " + refused);
                assertEchoOverTcp(tcp);
            }

            bundle(TRANSPORT_BUNDLE).start();
            RdmaTransportControl after = awaitRdma();
            try (RpcRdmaClient client = connect(after)) {
                assertEchoOverRdma(client);
            }
            assertEchoOverTcp(tcp);
        } finally {
            program.unregister();
            bundleContext.removeBundleListener(serverWatch);
        }
        assertEquals("no lifecycle event of the server bundle (types)", List.of(), serverEvents);
        assertEquals(Bundle.ACTIVE, server.getState());
        assertEquals("the server bundle was not updated", serverModified, server.getLastModified());
        assertEquals("the same TCP transport service", tcpServiceId, tcpReference().getProperty(Constants.SERVICE_ID));
    }

    private ServiceReference<HostedTransport> tcpReference() {
        List<ServiceReference<HostedTransport>> tcp = references(HostedTransport.class, t -> "tcp".equals(t.name()));
        assertEquals("one TCP transport", 1, tcp.size());
        return tcp.get(0);
    }

    private void assertEchoOverTcp(TcpRecordClient tcp) throws IOException {
        byte[] data = EchoWire.pattern(++xid, 500);
        assertArrayEquals("ECHO over TCP, xid " + xid, EchoWire.echoReply(xid, data), tcp.call(EchoWire.echoCall(xid, data)));
    }

    private void assertEchoOverRdma(RpcRdmaClient client) throws Exception {
        byte[] data = EchoWire.pattern(++xid, 1500);
        assertArrayEquals("ECHO over RDMA, xid " + xid, EchoWire.echoReply(xid, data),
                EchoWire.bytes(client.call(CallRequest.builder(EchoWire.echoCall(xid, data)).build(), CALL_TIMEOUT).body()));
    }

    /** @return the IOException the action failed with; an answer, or no answer in time, fails the test */
    private static String failureOf(String what, IoAction action) throws Exception {
        try {
            action.run();
        } catch (InterruptedIOException e) {
            throw new AssertionError(what + " neither succeeded nor failed in time", e);
        } catch (IOException e) {
            return what + " failed: " + e;
        }
        throw new AssertionError(what + " succeeded with the transport bundle stopped");
    }

    @FunctionalInterface
    private interface IoAction {
        void run() throws Exception;
    }
}
