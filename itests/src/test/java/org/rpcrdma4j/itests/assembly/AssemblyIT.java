package org.rpcrdma4j.itests.assembly;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.vmOption;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.keepRuntimeFolder;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.rpcrdma4j.nfs3.localfs.UnixStat;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * The rpcrdma4j Karaf assembly itself (the distribution {@code ./run-server} starts), booted
 * unedited but for test isolation (offline Maven, TCP port 0, a free ssh port): DiSNI comes in
 * with it (its bundles, the libdisni fragment, sun.nio.ch exported by the system bundle); on a
 * machine without an RDMA device {@code provider = auto} serves over loopback and says why, and
 * DiSNI either lists no device or, without rdma-core or libdisni, did not start (one WARN line);
 * {@code bin/setenv} adds the JVM flag DiSNI needs and the one that lets the NFS programs read
 * lstat(2)'s result from the JDK's own structure ({@code UnixStat}); {@code bin/rpcrdma-console} runs console
 * commands without a terminal against this very container (bin/client over ssh).
 *
 * <p>Pax Exam starts the JVM itself, not through {@code bin/karaf}: it passes the flags of
 * {@code bin/setenv} as VM options, and {@link #setenvAddsTheDisniFlagAndKeepsTheOperatorsOptions}
 * checks the script by sourcing it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class AssemblyIT {
    private static final String SSH_PORT = "rpcrdma4j.itest.sshPort";

    @Inject
    protected BundleContext bundleContext;

    @Configuration
    public Option[] config() throws IOException {
        String localRepository = System.getProperty("maven.repo.local", System.getProperty("user.home") + "/.m2/repository");
        String version = System.getProperty("project.version");
        int sshPort;
        try (ServerSocket s = new ServerSocket(0)) {
            sshPort = s.getLocalPort();
        }
        return new Option[] {
            karafDistributionConfiguration().frameworkUrl(maven().groupId("org.rpcrdma4j").artifactId("rpcrdma4j-karaf-assembly")
                    .type("tar.gz").version(version)).karafVersion(System.getProperty("karaf.version"))
                    .unpackDirectory(new File("target/exam-assembly")).useDeployFolder(false),
            keepRuntimeFolder(),
            configureConsole().ignoreLocalConsole(),
            logLevel(LogLevel.INFO),
            editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.localRepository", localRepository),
            editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.repositories", ""),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            // ./run-server creates data/export; here a directory that exists
            editConfigurationFilePut("etc/org.rpcrdma4j.nfs3.cfg", "exports", "/export ${karaf.etc} 127.0.0.1/32(ro)"),
            editConfigurationFilePut("etc/org.apache.karaf.shell.cfg", "sshPort", String.valueOf(sshPort)),
            // what bin/setenv does for bin/karaf (Pax Exam launches java itself)
            vmOption("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"),
            vmOption("--add-opens=java.base/sun.nio.fs=ALL-UNNAMED"),
            systemProperty(SSH_PORT).value(String.valueOf(sshPort)),
            systemProperty("project.version").value(version),
        };
    }

    @Test
    public void disniComesWithTheAssemblyAndAutoServesOverLoopbackWithoutADevice() throws Exception {
        assertEquals(Bundle.ACTIVE, bundle("com.ibm.disni").getState());
        assertEquals(Bundle.ACTIVE, bundle("org.rpcrdma4j.verbs.disni").getState());
        assertEquals(Bundle.RESOLVED, bundle("org.rpcrdma4j.disni.nativelib").getState());
        String exported = bundleContext.getBundle(0).getHeaders().get(Constants.EXPORT_PACKAGE);
        assertTrue("the system bundle exports sun.nio.ch", exported != null && exported.matches("(?s).*\\bsun\\.nio\\.ch\\b.*"));
        assertTrue("DiSNI can read direct-buffer addresses", ByteBuffer.class.getModule().isExported("sun.nio.ch",
                bundle("com.ibm.disni").adapt(org.osgi.framework.wiring.BundleWiring.class).getClassLoader().getUnnamedModule()));

        RdmaTransportControl rdma = awaitTransport();
        Path log = Path.of(System.getProperty("karaf.data"), "log", "karaf.log");
        VerbsProvider disni = disniProvider();
        boolean disniHasDevice = disni != null && !disni.devices().isEmpty();
        assertEquals("provider auto", disniHasDevice ? "disni" : "loopback", rdma.providerName());
        String autoLine = awaitLogLine(log, "RDMA transport: provider 'auto' uses '" + rdma.providerName() + "'");
        if (disni == null) {
            assertTrue(autoLine, autoLine.contains("no DiSNI provider is registered"));
            List<String> refusals = lines(log, "DiSNI verbs provider not started: ");
            assertEquals("one line says why DiSNI did not start: " + refusals, 1, refusals.size());
            assertTrue(refusals.get(0), refusals.get(0).contains("WARN"));
            assertTrue(refusals.get(0), refusals.get(0).contains("libdisni not loadable") || refusals.get(0).contains("rdma-core"));
        } else if (!disniHasDevice) {
            assertTrue(autoLine, autoLine.contains("DiSNI sees no RDMA device with an IPv4 address"));
        }
    }

    @Test
    public void theConsoleScriptRunsCommandsWithoutATerminal() throws Exception {
        awaitTransport();
        Path karaf = Path.of(System.getProperty("karaf.home"));
        Path script = karaf.resolve("bin/rpcrdma-console");
        assertTrue(script + " is executable", Files.isExecutable(script));
        String port = System.getProperty(SSH_PORT);
        Result transports = run(List.of(script.toString(), "-a", port, "-t", "90", "rpcrdma:transports"));
        assertEquals(transports.output, 0, transports.status);
        assertTrue(transports.output, transports.output.matches("(?s).*\\brdma\\s+\\|\\s+(loopback|disni)\\s+\\|.*"));
        assertFalse(transports.output, transports.output.contains("\r"));
        assertFalse(transports.output, transports.output.contains("Logging in as"));

        Result refused = run(List.of(script.toString(), "-a", port, "-t", "90", "rpcrdma:strategy nosuch"));
        assertEquals("a refusal ends the script non-zero: " + refused.output, 1, refused.status);
        assertTrue("a command's error line comes back: " + refused.output,
                refused.output.contains("no registration strategy named 'nosuch'"));

        Result unknown = run(List.of(script.toString(), "-a", port, "-t", "90", "nosuch:command"));
        assertEquals(unknown.output, 1, unknown.status);
        assertTrue(unknown.output, unknown.output.contains("Command not found: nosuch:command"));
    }

    @Test
    public void theNfsProgramsReadAttributesFromTheJdkStructureWithSetenvsOptions() {
        assertTrue(UnixStat.route(), UnixStat.readsJdkStructure());
    }

    @Test
    public void setenvAddsTheDisniFlagAndKeepsTheOperatorsOptions() throws Exception {
        Path setenv = Path.of(System.getProperty("karaf.home"), "bin", "setenv");
        Result plain = run(List.of("sh", "-c", ". \"$0\"; echo \"[$EXTRA_JAVA_OPTS]\"", setenv.toString()));
        assertEquals(plain.output, "[--add-exports=java.base/sun.nio.ch=ALL-UNNAMED -XX:PerfDataSamplingInterval=1000 --add-opens=java.base/sun.nio.fs=ALL-UNNAMED]",
                plain.output.strip());
        Result kept = run(List.of("sh", "-c", "EXTRA_JAVA_OPTS=-Dmine=1; . \"$0\"; . \"$0\"; echo \"[$EXTRA_JAVA_OPTS]\"",
                setenv.toString()));
        assertEquals("added once, the operator's option kept",
                "[--add-exports=java.base/sun.nio.ch=ALL-UNNAMED -Dmine=1 -XX:PerfDataSamplingInterval=1000 --add-opens=java.base/sun.nio.fs=ALL-UNNAMED]", kept.output.strip());
        Result own = run(List.of("sh", "-c", "EXTRA_JAVA_OPTS=-XX:PerfDataSamplingInterval=50; . \"$0\"; echo \"[$EXTRA_JAVA_OPTS]\"",
                setenv.toString()));
        assertEquals("the operator's sampling interval wins",
                "[--add-exports=java.base/sun.nio.ch=ALL-UNNAMED -XX:PerfDataSamplingInterval=50 --add-opens=java.base/sun.nio.fs=ALL-UNNAMED]", own.output.strip());
    }

    private record Result(int status, String output) {
    }

    private static Result run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(command + " finished", p.waitFor(120, TimeUnit.SECONDS));
        String text = new String(out, StandardCharsets.UTF_8);
        System.out.println("$ " + String.join(" ", command) + "\n" + text);
        return new Result(p.exitValue(), text);
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : bundleContext.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no installed bundle " + symbolicName);
    }

    private VerbsProvider disniProvider() throws Exception {
        var refs = bundleContext.getServiceReferences(VerbsProvider.class, "(rpcrdma4j.verbs.provider=disni)");
        return refs.isEmpty() ? null : bundleContext.getService(refs.iterator().next());
    }

    private RdmaTransportControl awaitTransport() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (ServiceReference<RdmaTransportControl> ref : bundleContext.getServiceReferences(RdmaTransportControl.class, null)) {
                RdmaTransportControl c = bundleContext.getService(ref);
                if (c != null && c.localAddress() != null) {
                    return c;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no RPC-over-RDMA transport listening after 60 s");
    }

    private static List<String> lines(Path log, String containing) throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> l.contains(containing)).toList();
    }

    private static String awaitLogLine(Path log, String containing) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<String> found = lines(log, containing);
            if (!found.isEmpty()) {
                assertNotNull(found.get(0));
                return found.get(0);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no line containing '" + containing + "' in " + log);
    }
}
