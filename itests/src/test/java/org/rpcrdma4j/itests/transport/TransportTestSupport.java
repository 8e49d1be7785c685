package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import javax.inject.Inject;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.itests.support.KarafTestSupport;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Base of the RPC-over-RDMA transport tests in Karaf: the {@code rpcrdma4j} feature (host
 * server, loopback provider, transport, both strategies, NFS binding, NFSv3) and the Java client
 * installed at boot, TCP and RDMA on ephemeral ports of 127.0.0.1, and the helpers the tests share:
 * finding the transports, connecting a client through the loopback provider service, switching
 * the active strategy through Config Admin, waiting for a condition.
 */
public abstract class TransportTestSupport extends KarafTestSupport {
    /** Configuration PID of the transport component. */
    static final String TRANSPORT_PID = "org.rpcrdma4j.transport";
    static final String TRANSPORT_BUNDLE = "org.rpcrdma4j.transport";
    static final String SERVER_BUNDLE = "org.rpcrdma4j.server";
    static final String FRMR_BUNDLE = "org.rpcrdma4j.registration.frmr";
    /** Bound on every wait for the container to react (services, configuration, calls). */
    static final Duration BOUND = Duration.ofSeconds(60);
    /** Bound on one call. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    @Inject
    protected ConfigurationAdmin configurationAdmin;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j", "rpcrdma4j-client"};
    }

    @Override
    protected Option[] extraOptions() {
        return new Option[] {
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "bindAddress", "127.0.0.1"),
            editConfigurationFilePut("etc/" + TRANSPORT_PID + ".cfg", "port", "0"),
            editConfigurationFilePut("etc/" + TRANSPORT_PID + ".cfg", "bindAddress", "127.0.0.1"),
        };
    }

    /** @return the RDMA transport once it listens with both strategies registered */
    protected RdmaTransportControl awaitRdma() throws InterruptedException {
        return awaitService(RdmaTransportControl.class, c -> c.localAddress() != null
                && c.strategies().containsAll(List.of("lkey", "frmr")), (int) BOUND.toSeconds());
    }

    /** @return the host server's TCP transport once it listens */
    protected HostedTransport awaitTcp() throws InterruptedException {
        return awaitService(HostedTransport.class, t -> "tcp".equals(t.name()) && t.localAddress() != null,
                (int) BOUND.toSeconds());
    }

    /** @return the services of this type registered now, as references, filtered */
    protected <T> List<ServiceReference<T>> references(Class<T> type, Predicate<T> which) {
        try {
            Collection<ServiceReference<T>> all = bundleContext.getServiceReferences(type, null);
            return all.stream().filter(r -> {
                T service = bundleContext.getService(r);
                try {
                    return service != null && which.test(service);
                } finally {
                    bundleContext.ungetService(r);
                }
            }).toList();
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the loopback verbs provider service, the one the transport serves over */
    protected VerbsProvider loopbackProvider() throws InvalidSyntaxException {
        Collection<ServiceReference<VerbsProvider>> refs = bundleContext.getServiceReferences(VerbsProvider.class,
                "(" + VerbsProvider.PROVIDER_NAME + "=loopback)");
        assertFalse("the loopback provider is registered", refs.isEmpty());
        return bundleContext.getService(refs.iterator().next());
    }

    /** @return a client connected over the loopback provider to the transport, with a progress thread */
    protected RpcRdmaClient connect(RdmaTransportControl rdma) throws Exception {
        return RpcRdmaClient.connect(loopbackProvider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).build());
    }

    /** Sets {@code activeStrategy} of the transport's configuration, keeping every other property. */
    protected void configureActiveStrategy(String name) throws IOException {
        Configuration configuration = configurationAdmin.getConfiguration(TRANSPORT_PID, null);
        Dictionary<String, Object> properties = configuration.getProperties();
        if (properties == null) {
            properties = new Hashtable<>();
        }
        properties.put("activeStrategy", name);
        configuration.update(properties);
    }

    /** @return READs started so far under that strategy's name */
    protected static long reads(RdmaTransportControl rdma, String strategy) {
        return rdma.statistics().readsByStrategy().getOrDefault(strategy, 0L);
    }

    /**
     * Waits until {@code count} more READs are counted under {@code strategy} while the load
     * runs, and asserts that no call of the load has failed so far.
     */
    protected static void awaitMoreReads(RdmaTransportControl rdma, String strategy, int count, ReadChunkLoad load)
            throws InterruptedException {
        long target = reads(rdma, strategy) + count;
        awaitCondition(count + " more READs under " + strategy + " (target " + target + ", failures "
                + load.failures() + ")", () -> reads(rdma, strategy) >= target || !load.failures().isEmpty());
        assertEquals("every call answered byte-exact so far", List.of(), load.failures());
    }

    /** Polls {@code condition} until it holds, failing with {@code what} after {@link #BOUND}. */
    protected static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + BOUND.toSeconds() + " s: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
