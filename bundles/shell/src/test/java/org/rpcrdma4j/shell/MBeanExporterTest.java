package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.management.Attribute;
import javax.management.DynamicMBean;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.Counter;

/**
 * MBeanExporterTest - transports and connections get MBeans with stable names while they exist,
 * counters read live, ActiveStrategy goes through the strategy switch; the names are valid JMX
 * names and the MBeans register in a real MBean server.
 */
class MBeanExporterTest {
    private final Map<String, DynamicMBean> registered = new LinkedHashMap<>();
    private final List<String> switched = new ArrayList<>();
    private final MBeanExporter exporter = new MBeanExporter((name, bean) -> {
        assertFalse(registered.containsKey(name), "registered twice: " + name);
        registered.put(name, bean);
        return () -> registered.remove(name);
    }, strategy -> {
        if (!strategy.equals("frmr")) {
            throw new IllegalArgumentException("no registration strategy named '" + strategy + "'; registered: lkey, frmr");
        }
        switched.add(strategy);
        return "Active registration strategy: " + strategy;
    });

    @Test
    void aTransportAndItsConnectionsComeAndGo() throws Exception {
        Fakes.Control control = new Fakes.Control();
        InetSocketAddress bound = control.address;
        control.address = null; // not listening yet: nothing registered
        exporter.add(control);
        assertEquals(List.of(), exporter.registeredNames());

        control.address = bound;
        Fakes.Connection first = new Fakes.Connection();
        Fakes.Connection sameRemote = new Fakes.Connection();
        control.connections.add(first);
        control.connections.add(sameRemote);
        exporter.refresh();
        String transport = "org.rpcrdma4j:type=Transport,name=rdma-20049";
        String connection = "org.rpcrdma4j:type=Connection,transport=rdma-20049,remote=\"192.0.2.7:40001\"";
        assertEquals(List.of(connection, connection + ",id=2", transport), exporter.registeredNames());
        assertEquals(registered.keySet(), new java.util.HashSet<>(exporter.registeredNames()));
        for (String name : registered.keySet()) {
            new ObjectName(name); // a valid JMX name
        }

        control.statistics.set(Counter.CALLS_DELIVERED, 41);
        assertEquals(41L, registered.get(transport).getAttribute("CallsDelivered"));
        first.statistics.set(Counter.SENDS, 7);
        assertEquals(7L, registered.get(connection).getAttribute("Sends"));
        assertEquals(32, registered.get(connection).getAttribute("GrantedCredits"));
        assertEquals("192.0.2.7:40001", registered.get(connection).getAttribute("RemoteAddress"));
        assertEquals(2, registered.get(transport).getAttribute("Connections"));
        first.replyLatency = new org.rpcrdma4j.transport.ReplyLatency(1000, 512, 928, 992, 1024, 1088);
        assertEquals(List.of(1000L, 512L, 928L, 992L, 1024L, 1088L), List.of("Count", "P50Micros", "P90Micros", "P99Micros",
                "P999Micros", "MaxMicros").stream().map(a -> {
                    try {
                        return registered.get(connection).getAttribute("ReplyLatency" + a);
                    } catch (javax.management.JMException e) {
                        throw new AssertionError(e);
                    }
                }).toList(), "the reply latency, read live");

        control.connections.remove(first);
        exporter.refresh();
        assertFalse(registered.containsKey(connection), "the closed connection's MBean is gone");
        assertTrue(registered.containsKey(connection + ",id=2"));

        exporter.remove(control);
        assertEquals(Map.of(), registered);
        assertEquals(List.of(), exporter.registeredNames());
    }

    @Test
    void activeStrategyIsReadAndSetThroughTheSwitch() throws Exception {
        Fakes.Control control = new Fakes.Control();
        exporter.add(control);
        DynamicMBean transport = registered.get("org.rpcrdma4j:type=Transport,name=rdma-20049");
        assertEquals("lkey", transport.getAttribute("ActiveStrategy"));
        transport.setAttribute(new Attribute("ActiveStrategy", "frmr"));
        assertEquals(List.of("frmr"), switched);
        InvalidAttributeValueException refused = assertThrows(InvalidAttributeValueException.class,
                () -> transport.setAttribute(new Attribute("ActiveStrategy", "frmx")));
        assertTrue(refused.getMessage().contains("no registration strategy named 'frmx'"), refused.getMessage());
        assertThrows(InvalidAttributeValueException.class, () -> transport.setAttribute(new Attribute("ActiveStrategy", 3)));
        assertThrows(javax.management.AttributeNotFoundException.class, () -> transport.setAttribute(new Attribute("Sends", 3L)));
        exporter.close();
        assertEquals(Map.of(), registered);
    }

    @Test
    void theMBeansRegisterInARealMBeanServerWithEveryCounter() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Fakes.Control control = new Fakes.Control();
        control.connections.add(new Fakes.Connection());
        MBeanExporter real = new MBeanExporter((name, bean) -> {
            try {
                ObjectName on = new ObjectName(name);
                server.registerMBean(bean, on);
                return () -> {
                    try {
                        server.unregisterMBean(on);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, strategy -> "");
        real.add(control);
        try {
            ObjectName transport = new ObjectName("org.rpcrdma4j:type=Transport,name=rdma-20049");
            control.statistics.set(Counter.READS, 5);
            assertEquals(5L, server.getAttribute(transport, "Reads"));
            assertEquals(Counter.values().length + 6, server.getMBeanInfo(transport).getAttributes().length);
            assertEquals(1, server.queryNames(new ObjectName("org.rpcrdma4j:type=Connection,*"), null).size());
        } finally {
            real.close();
        }
        assertEquals(0, server.queryNames(new ObjectName("org.rpcrdma4j:*"), null).size());
    }

    @Test
    void counterAttributesAreCamelCase() {
        assertEquals("CallsDelivered", CountersMBean.attributeName(Counter.CALLS_DELIVERED));
        assertEquals("ErrChunkSent", CountersMBean.attributeName(Counter.ERR_CHUNK_SENT));
    }
}
