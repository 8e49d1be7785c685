package org.rpcrdma4j.itests.server;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Dictionary;
import java.util.Hashtable;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.itests.support.KarafTestSupport;
import org.rpcrdma4j.server.HostedTransport;

/**
 * The host server in Karaf is a whiteboard: an {@code RpcDispatchable} service registered
 * with {@code rpc.program}/{@code rpc.version} properties is served over oncrpc4j TCP at
 * once, and stops being served when it is unregistered, with no restart of anything.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HostServerIT extends KarafTestSupport {

    private static final int PROGRAM = 0x2000_0777;
    private static final int VERSION = 1;
    private static final int PROC_ECHO = 1;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j-server"};
    }

    @Override
    protected Option[] extraOptions() {
        // An ephemeral port: the test asks the transport service where it listens.
        return new Option[] {
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "bindAddress", "127.0.0.1"),
        };
    }

    @Test
    public void registeredProgramServiceIsServedOverTcpUntilUnregistered() throws Exception {
        assertActive("org.rpcrdma4j.server");
        HostedTransport tcp = awaitService(HostedTransport.class,
                t -> "tcp".equals(t.name()) && t.localAddress() != null, 60);
        InetSocketAddress address = tcp.localAddress();

        RpcDispatchable echo = call -> {
            XdrOpaque argument = new XdrOpaque();
            call.retrieveCall(argument);
            call.reply(argument);
        };
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("rpc.program", PROGRAM);
        properties.put("rpc.version", VERSION);
        ServiceRegistration<RpcDispatchable> registration =
                bundleContext.registerService(RpcDispatchable.class, echo, properties);

        try (OncRpcClient client = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP,
                address.getPort())) {
            RpcTransport transport = client.connect();
            byte[] payload = "served from a whiteboard service".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            XdrOpaque result = new XdrOpaque();
            new RpcCall(PROGRAM, VERSION, new RpcAuthTypeNone(), transport)
                    .call(PROC_ECHO, new XdrOpaque(payload), result);
            assertArrayEquals(payload, result.getOpaque());

            registration.unregister();
            try {
                new RpcCall(PROGRAM, VERSION, new RpcAuthTypeNone(), transport)
                        .call(PROC_ECHO, new XdrOpaque(payload), new XdrOpaque());
                throw new AssertionError("an unregistered program was still served");
            } catch (OncRpcAcceptedException expected) {
                assertEquals("PROG_UNAVAIL", expected.getMessage());
            }
        }
        assertTrue("the server bundle stayed active", bundle("org.rpcrdma4j.server").getState() == org.osgi.framework.Bundle.ACTIVE);
    }
}
