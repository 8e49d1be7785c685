package org.rpcrdma4j.transport.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;
import org.rpcrdma4j.verbs.loopback.LoopbackProvider;

/**
 * RdmaTransportComponentTest - the component driven as SCR would through a recording bundle
 * context: a refused configuration (a provider no provider has, a value SCR cannot convert)
 * leaves the running transport registered, and the status service says why.
 */
class RdmaTransportComponentTest {
    private final LoopbackProvider loopback = new LoopbackProvider();
    private final List<Object> live = new ArrayList<>();
    private final RdmaTransportComponent component = new RdmaTransportComponent();

    @AfterEach
    void stop() {
        component.deactivate();
        loopback.close();
    }

    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                (self, method, args) -> {
                    if (!method.getName().equals("registerService")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Object service = args[1];
                    live.add(service);
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                            (registration, call, none) -> {
                                if (call.getName().equals("unregister")) {
                                    live.remove(service);
                                    return null;
                                }
                                throw new UnsupportedOperationException(call.getName());
                            });
                });
    }

    private <T> List<T> registered(Class<T> type) {
        List<T> found = new ArrayList<>();
        for (Object service : live) {
            if (type.isInstance(service)) {
                found.add(type.cast(service));
            }
        }
        return found;
    }

    private void modify(Map<String, Object> raw) {
        component.modified(TransportSettingsTest.scrConfig(raw), raw);
    }

    private static Map<String, Object> config(String... keysAndValues) {
        Map<String, Object> raw = new HashMap<>(Map.of("provider", "loopback", "port", "0", "service.pid",
                RdmaTransportComponent.PID));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            raw.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return raw;
    }

    @Test
    void aRefusedConfigurationKeepsTheTransportRunningAndTheStatusSaysWhy() {
        component.bindProvider(loopback);
        Map<String, Object> good = config();
        component.activate(context(), TransportSettingsTest.scrConfig(good), good);
        RdmaTransportStatus status = registered(RdmaTransportStatus.class).get(0);
        RdmaTransportControl running = registered(RdmaTransportControl.class).get(0);
        assertEquals("serving over 'loopback' on 0.0.0.0:0", status.state());
        assertNull(status.refusal());

        modify(config("provider", "disnii"));
        assertEquals(List.of(running), registered(RdmaTransportControl.class), "the transport keeps running");
        assertEquals("serving over 'loopback' on 0.0.0.0:0", status.state());
        assertTrue(status.refusal().startsWith("configuration org.rpcrdma4j.transport refused: provider = disnii: "
                + "no such verbs provider"), status.refusal());
        assertTrue(status.refusal().endsWith("did you mean 'disni'?; the previous configuration keeps running"),
                status.refusal());

        modify(config("credits", "abc"));
        assertEquals(List.of(running), registered(RdmaTransportControl.class), "the transport keeps running");
        assertTrue(status.refusal().contains("credits = abc: not a whole number"), status.refusal());

        modify(config("credits", "32", "credts", "16"));
        assertNull(status.refusal(), "accepted (the unknown key only warned of)");
        RdmaTransportControl replaced = registered(RdmaTransportControl.class).get(0);
        assertEquals(32, replaced.config().credits());
        assertEquals(1, registered(RdmaTransportControl.class).size());
    }

    @Test
    void aRefusedFirstConfigurationServesNothingAndTheStatusSaysWhy() {
        component.bindProvider(loopback);
        Map<String, Object> bad = config("credits", "abc");
        component.activate(context(), TransportSettingsTest.scrConfig(bad), bad);
        assertEquals(List.of(), registered(RdmaTransportControl.class));
        RdmaTransportStatus status = registered(RdmaTransportStatus.class).get(0);
        assertTrue(status.state().startsWith("not serving: configuration org.rpcrdma4j.transport refused: credits = abc: "
                + "not a whole number"), status.state());

        modify(config());
        assertEquals(1, registered(RdmaTransportControl.class).size());
        assertEquals("serving over 'loopback' on 0.0.0.0:0", status.state());
        assertNull(status.refusal());
    }

    @Test
    void deactivationUnregistersEverything() {
        component.bindProvider(loopback);
        Map<String, Object> good = config();
        component.activate(context(), TransportSettingsTest.scrConfig(good), good);
        assertSame(registered(RdmaTransportStatus.class).get(0), registered(RdmaTransportStatus.class).get(0));
        component.deactivate();
        assertEquals(List.of(), live);
    }
}
