package org.rpcrdma4j.shell;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.CommandException;
import org.osgi.framework.BundleContext;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * {@code rpcrdma:bench [-n calls] [-c concurrency] [-s argumentBytes] [--tcp]} - NULL calls through the Java
 * RPC-over-RDMA client against the running RDMA transport (and, with {@code --tcp}, through
 * oncrpc4j's TCP client against the TCP transport): calls/s, mean and p50/p99/p99.9 latency,
 * failures.
 *
 * <p>Bounded: every call has a timeout, the whole run too, and every client is closed when the
 * run ends, fails or is interrupted (Ctrl-C), or when the session's output is gone (a
 * {@code bin/client} that was killed, e.g. by {@code bin/rpcrdma-console -t}: {@link OutputWatch}).
 * A refusal or failure is a {@link CommandException}: {@code bin/client} exits non-zero.
 */
@Service
@Command(scope = "rpcrdma", name = "bench", description = "Measures NULL calls over the running RPC-over-RDMA transport (and TCP with --tcp)")
public class BenchCommand implements Action {
    /** The oncrpc4j program service type the host server serves (looked up by name). */
    static final String RPC_DISPATCHABLE = "org.dcache.oncrpc4j.rpc.RpcDispatchable";
    /** How often a long-running command checks that its session's output is still there. */
    static final Duration OUTPUT_WATCH_PERIOD = Duration.ofSeconds(1);

    @Option(name = "-n", aliases = "--calls", description = "calls per transport")
    private int calls = 10_000;

    @Option(name = "-c", aliases = "--concurrency", description = "calls in flight at once")
    private int concurrency = 8;

    @Option(name = "-p", aliases = "--program", description = "program to call NULL of (default: NFS v3 if registered, else the lowest registered)")
    private Integer program;

    @Option(name = "-V", aliases = "--program-version", description = "version of that program (default: its highest registered)")
    private Integer version;

    @Option(name = "-s", aliases = "--size", description = "opaque argument bytes per call (default 0); over RDMA an argument "
            + "too large to go inline is pulled by the server with RDMA READ, through the active registration strategy")
    private int argumentBytes;

    @Option(name = "--tcp", description = "also run over oncrpc4j's TCP client against the TCP transport, and print RDMA/TCP")
    private boolean tcp;

    @Option(name = "--call-timeout", description = "milliseconds to wait for one reply")
    private long callTimeoutMillis = 5_000;

    @Option(name = "--run-timeout", description = "seconds one transport's run may take")
    private long runTimeoutSeconds = 120;

    @Reference
    private BundleContext context;

    @Reference
    private Session session;

    @Override
    public Object execute() throws CommandException {
        try (Services services = new Services(context);
             OutputWatch watch = OutputWatch.start(session.getConsole(), OUTPUT_WATCH_PERIOD)) {
            run(services);
            if (watch.tripped()) {
                throw new CommandException("stopped: the session's output is gone");
            }
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            throw new CommandException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException("interrupted", e);
        }
        return null;
    }

    private void run(Services services) throws IOException, InterruptedException {
        RdmaTransportControl control = rdmaTransport(services);
        VerbsProvider provider = provider(services, control.providerName());
        InetSocketAddress tcpAddress = tcp ? tcpAddress(services) : null;
        BenchTarget target = BenchTarget.choose(registeredPrograms(services), program, version);
        BenchPlan plan = new BenchPlan(calls, concurrency, target.program(), target.version(), argumentBytes,
                Duration.ofMillis(callTimeoutMillis), Duration.ofSeconds(runTimeoutSeconds));

        System.out.println(BenchReport.header(plan, target));
        List<BenchResult> results = new ArrayList<>();
        InetSocketAddress rdmaAddress = Endpoints.connectable(control.localAddress());
        BenchResult rdma;
        try (RdmaBenchChannel channel = RdmaBenchChannel.connect(provider, rdmaAddress, plan)) {
            rdma = new BenchRunner(plan).run("rdma", channel);
        } catch (IOException e) {
            throw new IOException("cannot connect over RPC-over-RDMA (" + control.providerName() + ") to "
                    + Endpoints.format(rdmaAddress) + ": " + BenchRunner.describe(e), e);
        }
        results.add(rdma);
        System.out.println(BenchReport.summary(rdma));
        BenchResult tcpResult = null;
        if (tcpAddress != null && !rdma.interrupted()) {
            try (TcpBenchChannel channel = TcpBenchChannel.connect(tcpAddress, plan)) {
                tcpResult = new BenchRunner(plan).run("tcp", channel);
            } catch (IOException e) {
                throw new IOException("cannot connect over TCP to " + Endpoints.format(tcpAddress) + ": "
                        + BenchRunner.describe(e), e);
            }
            results.add(tcpResult);
            System.out.println(BenchReport.summary(tcpResult));
        }
        BenchReport.table(results).print(System.out);
        if (tcpResult != null) {
            System.out.println(BenchReport.ratio(rdma, tcpResult));
        }
    }

    private static RdmaTransportControl rdmaTransport(Services services) {
        List<RdmaTransportControl> controls = services.get(RdmaTransportControl.class, null);
        if (controls.isEmpty()) {
            List<RdmaTransportStatus> status = services.get(RdmaTransportStatus.class, null);
            throw new IllegalStateException(TransportListing.noRdmaTransport(status.isEmpty() ? null : status.get(0)));
        }
        RdmaTransportControl control = controls.get(0);
        if (control.localAddress() == null) {
            throw new IllegalStateException("the RPC-over-RDMA transport '" + control.name() + "' is not serving (no local address)");
        }
        return control;
    }

    private static VerbsProvider provider(Services services, String name) {
        List<VerbsProvider> providers = services.get(VerbsProvider.class, "(" + VerbsProvider.PROVIDER_NAME + "=" + name + ")");
        if (providers.isEmpty()) {
            throw new IllegalStateException("no VerbsProvider service with " + VerbsProvider.PROVIDER_NAME + "=" + name
                    + ", the provider the RDMA transport uses");
        }
        return providers.get(0);
    }

    private static InetSocketAddress tcpAddress(Services services) {
        for (HostedTransport t : services.get(HostedTransport.class, null)) {
            if ("tcp".equals(t.name()) && t.localAddress() != null) {
                return Endpoints.connectable(t.localAddress());
            }
        }
        throw new IllegalStateException("--tcp: no TCP transport is serving (PID org.rpcrdma4j.server.tcp)");
    }

    /** The programs of the RpcDispatchable services the host server can get (a failed DS component's cannot). */
    private static List<BenchTarget> registeredPrograms(Services services) {
        List<BenchTarget> targets = new ArrayList<>();
        for (Map<String, Object> props : services.obtainableProperties(RPC_DISPATCHABLE)) {
            targets.addAll(BenchTarget.fromProperties(props.get("rpc.program"), props.get("rpc.version")));
        }
        return targets;
    }
}
