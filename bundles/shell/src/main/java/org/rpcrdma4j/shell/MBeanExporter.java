package org.rpcrdma4j.shell;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.management.DynamicMBean;
import javax.management.ObjectName;

import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MBeanExporter - keeps one MBean per running RPC-over-RDMA transport and one per connection,
 * registered while they exist: {@link #refresh} (called on a modest timer, off the transport's
 * paths) registers what appeared and unregisters what went; {@link #remove} drops a transport
 * and its connections at once. Names are stable:
 * {@code org.rpcrdma4j:type=Transport,name=rdma-20049} (the transport's name and bound port) and
 * {@code org.rpcrdma4j:type=Connection,transport=rdma-20049,remote="192.0.2.7:40001"} (a second
 * connection with the same name gets {@code ,id=2}, ...).
 *
 * <p>Threading: every method is synchronized; registration happens on the calling thread.
 */
final class MBeanExporter {
    /** The JMX domain of every name. */
    static final String DOMAIN = "org.rpcrdma4j";

    /** Registers an MBean under a name (in OSGi: a service with jmx.objectname for the whiteboard). */
    @FunctionalInterface
    interface Registrar {
        /**
         * @param objectName the name
         * @param bean the MBean
         * @return what unregisters it
         */
        Runnable register(String objectName, DynamicMBean bean);
    }

    private static final Logger LOG = LoggerFactory.getLogger(MBeanExporter.class);

    private final Registrar registrar;
    private final TransportMBean.Switcher switcher;
    private final Map<RdmaTransportControl, Exported> transports = new IdentityHashMap<>();
    private final Set<String> names = new HashSet<>();

    /** One transport's registrations. */
    private static final class Exported {
        String transportName;
        Runnable unregister;
        final Map<RdmaConnection, Registered> connections = new IdentityHashMap<>();
    }

    private record Registered(String name, Runnable unregister) {
    }

    /**
     * @param registrar registers the MBeans
     * @param switcher switches the active strategy for the transports' ActiveStrategy attribute
     */
    MBeanExporter(Registrar registrar, TransportMBean.Switcher switcher) {
        this.registrar = registrar;
        this.switcher = switcher;
    }

    /** @param control a transport to export once it is bound */
    synchronized void add(RdmaTransportControl control) {
        transports.putIfAbsent(control, new Exported());
        refresh(control, transports.get(control));
    }

    /** @param control a transport going away: its MBeans and its connections' are unregistered now */
    synchronized void remove(RdmaTransportControl control) {
        Exported e = transports.remove(control);
        if (e != null) {
            unregisterAll(e);
        }
    }

    /** Registers the MBeans of transports that started listening and of new connections; drops the closed ones. */
    synchronized void refresh() {
        for (Map.Entry<RdmaTransportControl, Exported> e : transports.entrySet()) {
            try {
                refresh(e.getKey(), e.getValue());
            } catch (RuntimeException failure) {
                LOG.warn("JMX: could not refresh the MBeans of transport {}: {}", e.getValue().transportName, failure.toString());
            }
        }
    }

    /** Unregisters everything. */
    synchronized void close() {
        transports.values().forEach(this::unregisterAll);
        transports.clear();
    }

    /** @return the names registered now (for tests and logs) */
    synchronized List<String> registeredNames() {
        List<String> list = new ArrayList<>(names);
        Collections.sort(list);
        return list;
    }

    private void refresh(RdmaTransportControl control, Exported e) {
        if (e.unregister == null) {
            InetSocketAddress bound = control.localAddress();
            if (bound == null) {
                return; // not listening yet
            }
            e.transportName = control.name() + "-" + bound.getPort();
            String name = transportObjectName(e.transportName);
            e.unregister = registrar.register(name, new TransportMBean(control, switcher));
            names.add(name);
        }
        List<RdmaConnection> live = control.connections();
        Set<RdmaConnection> liveSet = Collections.newSetFromMap(new IdentityHashMap<>());
        liveSet.addAll(live);
        e.connections.entrySet().removeIf(c -> {
            if (liveSet.contains(c.getKey())) {
                return false;
            }
            unregister(c.getValue());
            return true;
        });
        for (RdmaConnection c : live) {
            if (!e.connections.containsKey(c)) {
                String name = uniqueConnectionName(e.transportName, ConnectionMBean.text(c.remoteAddress()));
                e.connections.put(c, new Registered(name, registrar.register(name, new ConnectionMBean(c))));
                names.add(name);
            }
        }
    }

    private String uniqueConnectionName(String transport, String remote) {
        String base = DOMAIN + ":type=Connection,transport=" + value(transport) + ",remote=" + value(remote);
        String name = base;
        for (int id = 2; names.contains(name); id++) {
            name = base + ",id=" + id;
        }
        return name;
    }

    /**
     * @param transportName e.g. rdma-20049
     * @return its MBean's object name
     */
    static String transportObjectName(String transportName) {
        return DOMAIN + ":type=Transport,name=" + value(transportName);
    }

    /** @return the value as is when it needs no quoting (letters, digits, '.', '_', '-'), else quoted */
    static String value(String v) {
        return v.matches("[A-Za-z0-9._-]+") ? v : ObjectName.quote(v);
    }

    private void unregisterAll(Exported e) {
        e.connections.values().forEach(this::unregister);
        e.connections.clear();
        if (e.unregister != null) {
            names.remove(transportObjectName(e.transportName));
            quietly(e.unregister);
            e.unregister = null;
        }
    }

    private void unregister(Registered r) {
        names.remove(r.name());
        quietly(r.unregister());
    }

    private static void quietly(Runnable unregister) {
        try {
            unregister.run();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping: the framework unregistered it
        }
    }
}
