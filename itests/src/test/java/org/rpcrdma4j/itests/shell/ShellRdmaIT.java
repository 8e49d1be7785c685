package org.rpcrdma4j.itests.shell;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.inject.Inject;
import javax.management.Attribute;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.itests.support.KarafTestSupport;
import org.rpcrdma4j.itests.support.ShellCommands;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * The {@code rpcrdma:*} commands against a running RPC-over-RDMA transport: the loopback verbs
 * provider, both registration strategies, the transport component on an ephemeral port, and a
 * test program registered by the test for the benchmark's NULL calls.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ShellRdmaIT extends KarafTestSupport {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** A program of the user-defined range (RFC 5531 §7.3) that answers NULL. */
    private static final int PROGRAM = 0x2000_0779;
    /** Where both services listen (their cfg files); the listings and the transport awaited name it too. */
    private static final String BIND_ADDRESS = "127.0.0.1";

    @Inject
    protected SessionFactory sessionFactory;

    @Inject
    protected ConfigurationAdmin configurationAdmin;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j-shell", "rpcrdma4j-verbs-loopback", "rpcrdma4j-registration-lkey",
            "rpcrdma4j-registration-frmr"};
    }

    @Override
    protected Option[] extraOptions() {
        return new Option[] {
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "bindAddress", BIND_ADDRESS),
            editConfigurationFilePut("etc/org.rpcrdma4j.transport.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.transport.cfg", "bindAddress", BIND_ADDRESS),
        };
    }

    @Test
    public void transportsListsBothTransportsAndTheRdmaCounters() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        String out = shell().execute("rpcrdma:transports", TIMEOUT);
        String rdmaAddress = BIND_ADDRESS + ":" + rdma.localAddress().getPort();
        assertTrue(out, out.matches("(?s).*\\btcp\\s+\\S\\s+127\\.0\\.0\\.1:\\d+\\b.*"));
        // The RDMA row: name, provider, address, strategy, then the counters.
        assertTrue(out, out.matches("(?s).*\\brdma\\s+\\S\\s+loopback\\s+\\S\\s+" + Pattern.quote(rdmaAddress)
                + "\\s+\\S\\s+lkey\\s+\\S\\s+\\d+.*"));
        assertFalse(out, out.contains("No RPC-over-RDMA transport"));
        ShellWithoutRdmaIT.assertNoStackTrace(out);
    }

    @Test
    public void devicesListsTheLoopbackDeviceWithItsPortAndCapabilities() throws Exception {
        VerbsProvider loopback = awaitService(VerbsProvider.class, p -> "loopback".equals(p.name()), 30);
        String device = loopback.devices().get(0).name();
        String out = shell().execute("rpcrdma:devices", TIMEOUT);
        // provider, device, port 1, ACTIVE, the link layer, then the capabilities
        assertTrue(out, out.matches("(?s).*\\bloopback\\s+\\S\\s+" + Pattern.quote(device)
                + "\\s+\\S\\s+1\\s+\\S\\s+ACTIVE\\s+\\S\\s+(InfiniBand|Ethernet \\(RoCE\\)|iWARP)\\s+\\S.*"));
        assertTrue(out, out.contains("READ depth"));
        ShellWithoutRdmaIT.assertNoStackTrace(out);
    }

    @Test
    public void strategyListsSwitchesPersistentlyAndRefusesUnknownNames() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        assertEquals("lkey", rdma.activeStrategy());
        String list = shell().execute("rpcrdma:strategy", TIMEOUT);
        assertTrue(list, list.matches("(?s).*\\blkey\\s+\\S\\s+\\*.*"));
        assertTrue(list, list.matches("(?s).*\\bfrmr\\b.*"));

        String unknown = shell().refusal("rpcrdma:strategy frmx", TIMEOUT).strip();
        assertEquals("no registration strategy named 'frmx'; registered: lkey, frmr", unknown);
        assertEquals("nothing written for an unknown name", "lkey", activeStrategyConfigured());

        String switched = shell().execute("rpcrdma:strategy frmr", TIMEOUT).strip();
        assertEquals("Active registration strategy: frmr (org.rpcrdma4j.transport activeStrategy=frmr)", switched);
        assertEquals("frmr", awaitRdma().activeStrategy());
        assertEquals("frmr", activeStrategyConfigured());
        String after = shell().execute("rpcrdma:strategy", TIMEOUT);
        assertTrue(after, after.matches("(?s).*\\bfrmr\\s+\\S\\s+\\*.*"));

        String back = shell().execute("rpcrdma:strategy lkey", TIMEOUT).strip();
        assertTrue(back, back.startsWith("Active registration strategy: lkey"));
        assertEquals("lkey", awaitRdma().activeStrategy());
    }

    @Test
    public void benchMakesEveryCallOverRdmaAndOverTcp() throws Exception {
        awaitRdma();
        awaitService(HostedTransport.class, t -> "tcp".equals(t.name()) && t.localAddress() != null, 60);
        ServiceRegistration<RpcDispatchable> program = registerNullProgram();
        try {
            String out = shell().execute("rpcrdma:bench -n 2000 -c 8", TIMEOUT);
            assertTrue(out, out.contains("NULL calls to program " + PROGRAM + " v1: 2000 per transport, 8 in flight"));
            assertTrue(out, out.contains("rdma: 2000 calls, 0 failures, 0 not run"));
            assertFalse(out, out.contains("tcp:"));

            String both = shell().execute("rpcrdma:bench -n 500 -c 4 --tcp", TIMEOUT);
            assertTrue(both, both.contains("rdma: 500 calls, 0 failures, 0 not run"));
            assertTrue(both, both.contains("tcp: 500 calls, 0 failures, 0 not run"));
            assertTrue(both, both.matches("(?s).*RDMA/TCP: calls/s \\d+\\.\\d\\dx, p50 latency \\d+\\.\\d\\dx.*"));
            ShellWithoutRdmaIT.assertNoStackTrace(both);
        } finally {
            program.unregister();
        }
        String none = shell().refusal("rpcrdma:bench -n 10", TIMEOUT).strip();
        assertTrue(none, none.startsWith("no RPC program is registered with the host server"));
    }

    @Test
    public void benchWithLargeArgumentsPullsThemWithRdmaRead() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        ServiceRegistration<RpcDispatchable> program = registerNullProgram();
        try {
            long readsBefore = rdma.statistics().get(Counter.READS);
            String out = shell().execute("rpcrdma:bench -n 200 -c 4 -s 65536 --tcp", TIMEOUT);
            assertTrue(out, out.contains("4 in flight, 65536 argument bytes"));
            assertTrue(out, out.contains("rdma: 200 calls, 0 failures, 0 not run"));
            assertTrue(out, out.contains("tcp: 200 calls, 0 failures, 0 not run"));
            long reads = rdma.statistics().get(Counter.READS) - readsBefore;
            assertTrue("every call's argument was pulled by RDMA READ: " + reads + " READs", reads >= 200);
        } finally {
            program.unregister();
        }
    }

    @Test
    public void connectionsListsALiveClientWithItsCounters() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        ServiceRegistration<RpcDispatchable> program = registerNullProgram();
        try (RpcRdmaClient client = RpcRdmaClient.connect(loopbackProvider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).build())) {
            for (int xid = 1; xid <= 3; xid++) {
                client.call(CallRequest.builder(nullCall(xid)).build(), Duration.ofSeconds(30));
            }
            String out = shell().execute("rpcrdma:connections -v", TIMEOUT);
            // remote, local, state, credits, reply limit, remote invalidation, calls, sends
            Matcher row = Pattern.compile("(?m)^(\\S+)\\s+\\S\\s+" + Pattern.quote(BIND_ADDRESS + ":" + rdma.localAddress().getPort())
                    + "\\s+\\S\\s+open\\s+\\S\\s+(\\d+)\\s+\\S\\s+(\\d+)\\s+\\S\\s+(yes|no)\\s+\\S\\s+(\\d+)\\s+\\S\\s+(\\d+)").matcher(out);
            assertTrue(out, row.find());
            assertEquals(out, "3", row.group(5));
            assertTrue(out, out.matches("(?s).*\\bCALLS_DELIVERED\\s+\\S\\s+3\\b.*"));
            assertTrue(out, out.matches("(?s).*\\bSENDS\\s+\\S\\s+3\\b.*"));
            // each posted reply in the connection's histogram: the count exact, the times bucket bounds
            assertTrue(out, out.matches("(?s).*\\nreply latency \\(receive to reply SEND, [^)]*\\): count 3, "
                    + "p50 \\d+, p90 \\d+, p99 \\d+, p99\\.9 \\d+, max \\d+\\r?\\n.*"));
        } finally {
            program.unregister();
        }
    }

    @Test
    public void jmxShowsTheTransportAndEachConnectionWithMovingCountersAndSetsTheStrategy() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        MBeanServer server = awaitService(MBeanServer.class, s -> true, 30);
        String transportName = "rdma-" + rdma.localAddress().getPort();
        ObjectName transport = new ObjectName("org.rpcrdma4j:type=Transport,name=" + transportName);
        awaitNames(server, transport, 1);
        assertEquals("loopback", server.getAttribute(transport, "Provider"));
        long callsBefore = (Long) server.getAttribute(transport, "CallsDelivered");
        ServiceRegistration<RpcDispatchable> program = registerNullProgram();
        ObjectName connections = new ObjectName("org.rpcrdma4j:type=Connection,transport=" + transportName + ",*");
        awaitNames(server, connections, 0); // the connections of earlier tests (rpcrdma:bench) are gone
        try (RpcRdmaClient client = RpcRdmaClient.connect(loopbackProvider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).build())) {
            for (int xid = 1; xid <= 50; xid++) {
                client.call(CallRequest.builder(nullCall(xid)).build(), Duration.ofSeconds(30));
            }
            ObjectName connection = awaitNames(server, connections, 1).iterator().next();
            assertTrue(connection.toString(), connection.getKeyProperty("remote").startsWith("\"" + BIND_ADDRESS + ":"));
            assertEquals(50L, server.getAttribute(connection, "CallsDelivered"));
            assertEquals(50L, server.getAttribute(connection, "Sends"));
            assertEquals(50L, server.getAttribute(connection, "ReplyLatencyCount"));
            long p99 = (Long) server.getAttribute(connection, "ReplyLatencyP99Micros");
            assertTrue("p99 " + p99, p99 >= 1 && p99 <= (Long) server.getAttribute(connection, "ReplyLatencyMaxMicros"));
            assertEquals(Boolean.TRUE, server.getAttribute(connection, "Open"));
            long callsAfter = (Long) server.getAttribute(transport, "CallsDelivered");
            assertTrue(callsBefore + " -> " + callsAfter, callsAfter - callsBefore >= 50);

            // The strategy through JMX: written to Config Admin, applied by the transport.
            server.setAttribute(transport, new Attribute("ActiveStrategy", "frmr"));
            assertEquals("frmr", activeStrategyConfigured());
            assertEquals("frmr", server.getAttribute(transport, "ActiveStrategy"));
            assertEquals("frmr", awaitRdma().activeStrategy());
            try {
                server.setAttribute(transport, new Attribute("ActiveStrategy", "frmx"));
                fail("an unknown strategy is refused");
            } catch (InvalidAttributeValueException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("frmx"));
            }
            assertEquals("nothing written for an unknown name", "frmr", activeStrategyConfigured());
            server.setAttribute(transport, new Attribute("ActiveStrategy", "lkey"));
            assertEquals("lkey", activeStrategyConfigured());
        } finally {
            program.unregister();
        }
        awaitNames(server, connections, 0);
    }

    /** Waits up to 20 s until the pattern matches exactly {@code count} MBeans (the exporter polls every 2 s). */
    private static java.util.Set<ObjectName> awaitNames(MBeanServer server, ObjectName pattern, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        java.util.Set<ObjectName> names = server.queryNames(pattern, null);
        while (names.size() != count && System.nanoTime() < deadline) {
            Thread.sleep(200);
            names = server.queryNames(pattern, null);
        }
        assertEquals(pattern + ": " + names, count, names.size());
        return names;
    }

    private ShellCommands shell() {
        return new ShellCommands(sessionFactory);
    }

    /**
     * The transport once it serves on the configured address: it may first start on its defaults
     * (0.0.0.0), before fileinstall hands it etc/org.rpcrdma4j.transport.cfg (a CI run listed a
     * connection's local address as 0.0.0.0:20049).
     */
    private RdmaTransportControl awaitRdma() throws InterruptedException {
        return awaitService(RdmaTransportControl.class, c -> c.localAddress() != null
                && BIND_ADDRESS.equals(c.localAddress().getAddress().getHostAddress())
                && c.strategies().containsAll(List.of("lkey", "frmr")), 60);
    }

    private String activeStrategyConfigured() throws Exception {
        Dictionary<String, Object> properties = configurationAdmin.getConfiguration("org.rpcrdma4j.transport", null).getProperties();
        Object value = properties == null ? null : properties.get("activeStrategy");
        return value == null ? "lkey" : value.toString();
    }

    private VerbsProvider loopbackProvider() throws Exception {
        Collection<ServiceReference<VerbsProvider>> refs = bundleContext.getServiceReferences(VerbsProvider.class,
                "(" + VerbsProvider.PROVIDER_NAME + "=loopback)");
        assertFalse("the loopback provider is registered", refs.isEmpty());
        return bundleContext.getService(refs.iterator().next());
    }

    /** Registers a program that answers NULL (and nothing else) with the host server. */
    private ServiceRegistration<RpcDispatchable> registerNullProgram() {
        RpcDispatchable program = call -> {
            if (call.getProcedure() == 0) {
                call.reply(XdrVoid.XDR_VOID);
            } else {
                call.failProcedureUnavailable();
            }
        };
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("rpc.program", PROGRAM);
        properties.put("rpc.version", 1);
        return bundleContext.registerService(RpcDispatchable.class, program, properties);
    }

    /** An ONC RPC NULL call to {@link #PROGRAM} v1 with AUTH_NONE (RFC 5531 §9). */
    private static ByteBuffer nullCall(int xid) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES);
        return RpcMessage.putCallHeader(b, xid, PROGRAM, 1, 0).flip();
    }
}
