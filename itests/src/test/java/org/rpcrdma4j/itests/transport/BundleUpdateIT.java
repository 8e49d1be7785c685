package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Upgrade in place: {@code bundle:update} of each registration
 * strategy bundle and of the transport bundle while clients make calls with read chunks. The
 * clients behave like NFS clients (reconnect and retransmit when their connection goes); no call
 * may fail: every one is answered byte-exact, none gets an RDMA_ERROR.
 *
 * <p>The test finds the transport through the host server's {@link HostedTransport} service
 * (the server bundle is not updated): after an update without refresh the new transport's own
 * API classes belong to its new revision.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class BundleUpdateIT extends TransportTestSupport {
    private static final int THREADS = 4;
    /** Calls the load must answer after each step before the next. */
    private static final int CALLS_PER_STEP = 200;

    @Test
    public void updatingStrategyAndTransportBundlesUnderLoadFailsNoCall() throws Exception {
        awaitRdma();
        ServiceRegistration<RpcDispatchable> program = EchoProgram.register(bundleContext);
        ReconnectingLoad load = new ReconnectingLoad(this::rdmaAddress, this::provider, THREADS, CALL_TIMEOUT);
        List<String> failures;
        try {
            awaitCalls(load, CALLS_PER_STEP);
            for (String bundle : List.of("org.rpcrdma4j.registration.lkey", "org.rpcrdma4j.registration.frmr")) {
                update(bundle);
                awaitCalls(load, CALLS_PER_STEP);
                assertEquals("the configured strategy is active again after " + bundle + " came back", "lkey",
                        awaitRdma().activeStrategy());
            }
            long reconnectsBefore = load.reconnects();
            update(TRANSPORT_BUNDLE);
            awaitCalls(load, CALLS_PER_STEP);
            assertEquals("strategy updates keep the connections", 0, reconnectsBefore);
        } finally {
            failures = load.stop();
            program.unregister();
        }
        System.out.println("Bundle updates under load: " + load.answered() + " calls answered, " + load.reconnects()
                + " reconnects: " + load.reconnectCauses());
        assertEquals("every call answered byte-exact, none refused", List.of(), failures);
        assertTrue("the transport update closed the connections: clients reconnected", load.reconnects() >= 1);
    }

    /**
     * What {@code bundle:update ID} does (Karaf 4.4's command, without {@code -r}): update the
     * bundle from its location, which stops it, installs the new revision and starts it; no
     * refresh. (Through the OSGi API: the console's ACLs give bundle:update to admins only.)
     */
    private void update(String symbolicName) throws Exception {
        Bundle bundle = bundle(symbolicName);
        long modified = bundle.getLastModified();
        bundle.update();
        assertEquals(symbolicName + " ACTIVE after its update", Bundle.ACTIVE, bundle(symbolicName).getState());
        assertTrue(symbolicName + " was updated", bundle(symbolicName).getLastModified() > modified);
    }

    private void awaitCalls(ReconnectingLoad load, int count) throws InterruptedException {
        long target = load.answered() + count;
        awaitCondition(count + " more calls answered (failures " + load.failures() + ")",
                () -> load.answered() >= target || !load.failures().isEmpty());
        assertEquals("every call answered byte-exact so far", List.of(), load.failures());
    }

    /**
     * @return where the host server's "rdma" transport listens now, null while none does. Looked
     *         up without the assignability check: after an update without refresh the new
     *         transport's other service interface (RdmaTransportControl) comes from its new
     *         revision, which this probe is not wired to, so the typed lookup hides it; the object
     *         is still a HostedTransport of the one server bundle.
     */
    private InetSocketAddress rdmaAddress() {
        try {
            var refs = bundleContext.getAllServiceReferences(HostedTransport.class.getName(), null);
            for (var ref : refs == null ? new org.osgi.framework.ServiceReference<?>[0] : refs) {
                Object service = bundleContext.getService(ref);
                try {
                    if (service instanceof HostedTransport t && "rdma".equals(t.name()) && t.localAddress() != null) {
                        return t.localAddress();
                    }
                } finally {
                    bundleContext.ungetService(ref);
                }
            }
            return null;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private VerbsProvider provider() {
        try {
            return loopbackProvider();
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
