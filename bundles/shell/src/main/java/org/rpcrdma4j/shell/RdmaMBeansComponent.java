package org.rpcrdma4j.shell;

import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.management.DynamicMBean;
import javax.management.StandardMBean;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.rpcrdma4j.server.HostServerStatistics;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * RdmaMBeansComponent - the RPC-over-RDMA transports and their connections, and the host server's
 * call counters ({@value #HOST_SERVER_OBJECT_NAME}), as MBeans, through
 * the MBean whiteboard of Karaf's {@code management} feature (Aries JMX whiteboard): each MBean
 * is a {@link DynamicMBean} service with the property {@code jmx.objectname}, so jconsole,
 * Jolokia and hawtio show them without any JMX code here. Transports are followed as services;
 * their connections every {@value #REFRESH_SECONDS} s on one daemon thread (the transports have
 * no listener API, and counters are read live at each attribute get, so the period only delays
 * a new connection's MBean). Without the whiteboard the services are simply not exported.
 */
@Component(service = {}, immediate = true)
public final class RdmaMBeansComponent {
    /** How often the connection lists are compared with the registered MBeans. */
    static final int REFRESH_SECONDS = 2;
    /** How long setting ActiveStrategy waits for the transport to apply it, in polls of 100 ms. */
    private static final int SWITCH_POLLS = 50;

    /** The host server's MBean name. */
    static final String HOST_SERVER_OBJECT_NAME = MBeanExporter.DOMAIN + ":type=HostServer";

    private final List<RdmaTransportControl> controls = new CopyOnWriteArrayList<>();
    private BundleContext context;
    private HostServerStatistics host;
    private Runnable hostUnregister;
    private volatile ConfigurationAdmin configurationAdmin;
    private MBeanExporter exporter;
    private ScheduledExecutorService timer;

    @Activate
    synchronized void activate(BundleContext context) {
        this.context = context;
        if (host != null) {
            hostUnregister = registerHost(context, host);
        }
        exporter = new MBeanExporter((name, bean) -> register(context, name, bean), this::switchStrategy);
        controls.forEach(exporter::add);
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rpcrdma4j-jmx");
            t.setDaemon(true);
            return t;
        });
        MBeanExporter e = exporter;
        timer.scheduleWithFixedDelay(e::refresh, REFRESH_SECONDS, REFRESH_SECONDS, TimeUnit.SECONDS);
    }

    @Deactivate
    synchronized void deactivate() {
        if (hostUnregister != null) {
            hostUnregister.run();
            hostUnregister = null;
        }
        context = null;
        timer.shutdownNow();
        exporter.close();
        exporter = null;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindControl(RdmaTransportControl control) {
        controls.add(control);
        if (exporter != null) {
            exporter.add(control);
        }
    }

    synchronized void unbindControl(RdmaTransportControl control) {
        controls.remove(control);
        if (exporter != null) {
            exporter.remove(control);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindHost(HostServerStatistics statistics) {
        unbindHost(host);
        host = statistics;
        if (context != null) {
            hostUnregister = registerHost(context, statistics);
        }
    }

    synchronized void unbindHost(HostServerStatistics statistics) {
        if (statistics == null || host != statistics) {
            return;
        }
        host = null;
        if (hostUnregister != null) {
            hostUnregister.run();
            hostUnregister = null;
        }
    }

    /** The host server's counters as {@value #HOST_SERVER_OBJECT_NAME}. */
    private static Runnable registerHost(BundleContext context, HostServerStatistics statistics) {
        return register(context, HOST_SERVER_OBJECT_NAME,
                new StandardMBean(new HostServerCounters(statistics), HostServerMXBean.class, true));
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindConfigurationAdmin(ConfigurationAdmin admin) {
        configurationAdmin = admin;
    }

    void unbindConfigurationAdmin(ConfigurationAdmin admin) {
        if (configurationAdmin == admin) {
            configurationAdmin = null;
        }
    }

    /** ActiveStrategy set through JMX: exactly what rpcrdma:strategy NAME does. */
    private String switchStrategy(String strategy) throws Exception {
        return StrategySwitch.switchTo(strategy, () -> List.copyOf(controls),
                s -> StrategySwitch.writeStrategy(configurationAdmin, s), SWITCH_POLLS, () -> Thread.sleep(100));
    }

    private static Runnable register(BundleContext context, String objectName, DynamicMBean bean) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("jmx.objectname", objectName);
        ServiceRegistration<DynamicMBean> registration = context.registerService(DynamicMBean.class, bean, properties);
        return registration::unregister;
    }
}
