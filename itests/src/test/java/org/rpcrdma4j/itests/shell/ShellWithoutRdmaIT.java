package org.rpcrdma4j.itests.shell;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.time.Duration;
import javax.inject.Inject;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.rpcrdma4j.itests.support.KarafTestSupport;
import org.rpcrdma4j.itests.support.ShellCommands;
import org.rpcrdma4j.server.HostedTransport;

/**
 * The {@code rpcrdma:*} commands on a host that serves TCP only: feature rpcrdma4j-shell brings
 * the RDMA transport's bundle, but no verbs provider is installed, so no RPC-over-RDMA transport
 * runs. The listing shows the TCP transport; every RDMA command refuses with one clear line, which
 * says why (the transport component's status: waiting for a verbs provider).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ShellWithoutRdmaIT extends KarafTestSupport {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String NO_RDMA = "No RPC-over-RDMA transport is running";

    @Inject
    protected SessionFactory sessionFactory;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j-shell"};
    }

    @Override
    protected Option[] extraOptions() {
        return new Option[] {
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "bindAddress", "127.0.0.1"),
        };
    }

    @Test
    public void transportsListsTheTcpTransportAndSaysNoRdmaTransportRuns() throws Exception {
        assertActive("org.rpcrdma4j.shell");
        HostedTransport tcp = awaitService(HostedTransport.class, t -> "tcp".equals(t.name()) && t.localAddress() != null, 60);
        String out = shell().execute("rpcrdma:transports", TIMEOUT);
        assertTrue(out, out.matches("(?s).*\\btcp\\s+\\S\\s+127\\.0\\.0\\.1:" + tcp.localAddress().getPort() + "\\b.*"));
        assertTrue(out, out.contains(NO_RDMA));
        assertNoStackTrace(out);
    }

    @Test
    public void rdmaCommandsAnswerWithOneClearLine() throws Exception {
        awaitService(HostedTransport.class, t -> "tcp".equals(t.name()) && t.localAddress() != null, 60);
        for (String command : new String[] {"rpcrdma:strategy", "rpcrdma:strategy frmr", "rpcrdma:connections",
            "rpcrdma:bench -n 10"}) {
            String out = shell().refusal(command, TIMEOUT).strip();
            assertTrue(command + " printed:\n" + out, out.startsWith(NO_RDMA));
            assertFalse(command + " printed one line:\n" + out, out.contains("\n"));
        }
    }

    private ShellCommands shell() {
        return new ShellCommands(sessionFactory);
    }

    static void assertNoStackTrace(String out) {
        assertFalse(out, out.contains("Exception"));
        assertFalse(out, out.contains("\tat "));
    }
}
