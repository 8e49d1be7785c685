package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * The {@code rpcrdma4j} feature in Karaf serves the host server's programs over RPC-over-RDMA
 * (the loopback provider, the Java client) and over TCP with the same replies: an echo program
 * registered as a whiteboard service, inline and through a read chunk, and the NFSv3 NULL
 * procedure of the embedded NFS server.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaServingIT extends TransportTestSupport {

    /** The bundles the feature and the client feature bring, every one of them ACTIVE. */
    private static final Set<String> EXPECTED_BUNDLES = Set.of("org.rpcrdma4j.codec", "org.rpcrdma4j.verbs",
            "org.rpcrdma4j.verbs.loopback", "org.rpcrdma4j.server", "org.rpcrdma4j.transport",
            "org.rpcrdma4j.registration.lkey", "org.rpcrdma4j.registration.frmr", "org.rpcrdma4j.binding.nfs",
            "org.rpcrdma4j.nfs3", "org.rpcrdma4j.client");

    @Override
    protected Option[] extraOptions() {
        File export = new File("target/serving-export").getAbsoluteFile();
        File state = new File("target/serving-state").getAbsoluteFile();
        try {
            Files.createDirectories(export.toPath());
            Files.createDirectories(state.toPath());
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare the export directory " + export, e);
        }
        List<Option> options = new ArrayList<>(List.of(super.extraOptions()));
        options.add(editConfigurationFilePut("etc/org.rpcrdma4j.nfs3.cfg", "exports",
                "/export " + export + " 127.0.0.1/32(rw)"));
        options.add(editConfigurationFilePut("etc/org.rpcrdma4j.nfs3.cfg", "stateDirectory", state.toString()));
        return options.toArray(new Option[0]);
    }

    @Test
    public void featureInstallsCleanAndServesOverBothTransports() throws Exception {
        assertTrue("feature rpcrdma4j installed", featuresService.isInstalled(
                featuresService.getFeature("rpcrdma4j", System.getProperty("project.version"))));
        Set<String> ours = new TreeSet<>();
        for (Bundle bundle : bundleContext.getBundles()) {
            String name = bundle.getSymbolicName();
            if (name != null && name.startsWith(PROJECT_PREFIX)) {
                ours.add(name);
                boolean fragment = bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null;
                assertEquals(name + " state (32 = ACTIVE, 4 = RESOLVED for a fragment)",
                        fragment ? Bundle.RESOLVED : Bundle.ACTIVE, bundle.getState());
            }
        }
        assertTrue("installed: " + ours, ours.containsAll(EXPECTED_BUNDLES));
        RdmaTransportControl rdma = awaitRdma();
        assertEquals("loopback", rdma.providerName());
        assertEquals("lkey", rdma.activeStrategy());
        assertEquals("127.0.0.1", rdma.localAddress().getAddress().getHostAddress());
        awaitTcp();
    }

    @Test
    public void echoProgramAnswersTheSameOverRdmaAndTcp() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        try (RpcRdmaClient client = connect(rdma); TcpRecordClient tcp = new TcpRecordClient(awaitTcp().localAddress())) {
            byte[] small = EchoWire.pattern(2, 100);
            byte[] large = EchoWire.pattern(3, 2001);
            long readsBefore = reads(rdma, "lkey");

            assertSameReply("NULL", EchoWire.voidReply(1),
                    client.call(CallRequest.builder(nullCall(1)).build(), CALL_TIMEOUT).body(), tcp.call(nullCall(1)));
            assertSameReply("ECHO inline", EchoWire.echoReply(2, small),
                    client.call(CallRequest.builder(EchoWire.echoCall(2, small)).build(), CALL_TIMEOUT).body(),
                    tcp.call(EchoWire.echoCall(2, small)));
            assertSameReply("ECHO with its argument in a read chunk", EchoWire.echoReply(3, large),
                    client.call(EchoWire.echoWithReadChunk(3, large), CALL_TIMEOUT).body(),
                    tcp.call(EchoWire.echoCall(3, large)));
            assertEquals("the read chunk was pulled with one RDMA READ by the active strategy",
                    readsBefore + 1, reads(rdma, "lkey"));
        } finally {
            program.unregister();
        }
    }

    @Test
    public void nfsv3NullAnswersOverRdmaAndTcp() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        awaitCondition("the NFSv3 program service is registered", () -> nfsProgramRegistered());
        try (RpcRdmaClient client = connect(rdma); TcpRecordClient tcp = new TcpRecordClient(awaitTcp().localAddress())) {
            ByteBuffer call = EchoWire.call(0x3003, EchoWire.NFS_PROGRAM, EchoWire.NFS_VERSION, 0);
            assertSameReply("NFSv3 NULL", EchoWire.voidReply(0x3003),
                    client.call(CallRequest.builder(call.duplicate()).build(), CALL_TIMEOUT).body(), tcp.call(call));
        }
    }

    private boolean nfsProgramRegistered() {
        try {
            return !bundleContext.getServiceReferences(RpcDispatchable.class,
                    "(&(rpc.program=" + EchoWire.NFS_PROGRAM + ")(rpc.version=" + EchoWire.NFS_VERSION + "))").isEmpty();
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ByteBuffer nullCall(int xid) {
        return EchoWire.call(xid, EchoWire.PROGRAM, EchoWire.VERSION, EchoWire.PROC_NULL);
    }

    private static void assertSameReply(String what, byte[] expected, ByteBuffer overRdma, byte[] overTcp) {
        assertArrayEquals(what + " over RDMA", expected, EchoWire.bytes(overRdma));
        assertArrayEquals(what + " over TCP", expected, overTcp);
    }
}
