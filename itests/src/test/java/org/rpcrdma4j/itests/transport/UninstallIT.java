package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.karaf.features.FeaturesService;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Uninstalling the {@code rpcrdma4j} feature (and the client's) after serving calls over RDMA
 * with both strategies leaves nothing behind: no bundle of ours, no thread named rpcrdma4j-*,
 * and on the loopback fabric no registered memory and no queue pair.
 *
 * <p>The loopback provider's OSGi component does not expose its fabric's leak counters; the test
 * reaches them by reflection on the component instance (its {@code LoopbackProvider} field and
 * {@code LoopbackProvider.fabric()}), the one place they are.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class UninstallIT extends TransportTestSupport {
    private static final String PREFIX = "rpcrdma4j";

    @Test
    public void uninstallingLeavesNoBundleNoThreadAndNoRegisteredMemory() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        Object fabric = loopbackFabric(loopbackProvider());
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        try (RpcRdmaClient client = connect(rdma)) {
            for (String strategy : List.of("lkey", "frmr")) {
                configureActiveStrategy(strategy);
                awaitCondition(strategy + " active", () -> strategy.equals(rdma.activeStrategy()));
                for (int xid = 1; xid <= 20; xid++) {
                    byte[] data = EchoWire.pattern(xid, 64 * xid);
                    assertArrayEquals(EchoWire.echoReply(xid, data),
                            EchoWire.bytes(client.call(EchoWire.echoWithReadChunk(xid, data), CALL_TIMEOUT).body()));
                }
            }
            assertTrue("READs under both strategies: " + rdma.statistics().readsByStrategy(),
                    reads(rdma, "lkey") >= 20 && reads(rdma, "frmr") >= 20);
        } finally {
            program.unregister();
        }
        assertTrue("the serving transport holds registered memory", count(fabric, "registrationCount") > 0);
        assertFalse("rpcrdma4j threads run while serving", ourThreads().isEmpty());

        String version = System.getProperty("project.version");
        EnumSet<FeaturesService.Option> noRefresh = EnumSet.of(FeaturesService.Option.NoAutoRefreshBundles);
        featuresService.uninstallFeature("rpcrdma4j", version, noRefresh);
        featuresService.uninstallFeature("rpcrdma4j-client", version, noRefresh);

        for (Bundle bundle : bundleContext.getBundles()) {
            assertFalse("bundle left installed: " + bundle.getSymbolicName(),
                    String.valueOf(bundle.getSymbolicName()).startsWith(PROJECT_PREFIX));
        }
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!ourThreads().isEmpty() && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
        assertEquals("threads left running", List.of(), ourThreads());
        assertEquals("registered memory left on the loopback fabric", 0, count(fabric, "registrationCount"));
        assertEquals("queue pairs left on the loopback fabric", 0, count(fabric, "queuePairCount"));
    }

    private static List<String> ourThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(PREFIX))
                .sorted().toList();
    }

    /** @return the LoopbackFabric behind the loopback provider service (a LoopbackProviderComponent) */
    private static Object loopbackFabric(VerbsProvider component) throws ReflectiveOperationException {
        for (Field field : component.getClass().getDeclaredFields()) {
            if (VerbsProvider.class.isAssignableFrom(field.getType())) {
                field.setAccessible(true);
                Object provider = field.get(component);
                return provider.getClass().getMethod("fabric").invoke(provider);
            }
        }
        throw new AssertionError("no LoopbackProvider field in " + component.getClass().getName());
    }

    private static int count(Object fabric, String counter) throws ReflectiveOperationException {
        Method method = fabric.getClass().getMethod(counter);
        return (Integer) method.invoke(fabric);
    }
}
