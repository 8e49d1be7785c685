package org.rpcrdma4j.transport.osgi;

import java.net.InetSocketAddress;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RdmaTransportComponent - the RPC-over-RDMA transport in OSGi: configured through Config Admin
 * (PID {@value #PID}, {@code etc/org.rpcrdma4j.transport.cfg} in Karaf), it serves over the verbs
 * provider the configuration names, as soon as that provider's service is present, by
 * registering an {@link RdmaHostedTransport} as {@link HostedTransport} (the host server picks
 * it up) and {@link RdmaTransportControl} (the shell uses it).
 *
 * <p>Provider {@code auto} (the default) serves over DiSNI where its provider is registered and
 * lists an RDMA device with an IPv4 address, else over loopback, and logs which and why once per
 * change ({@link ProviderChoice}); a preferred provider arriving later replaces the transport.
 *
 * <p>Hot-plug: the provider going away unregisters the transport (the host stops it: running
 * calls answer, connections close); it coming back registers a new one. Registration strategies
 * and upper-layer bindings are followed as they come and go, without a restart. A configuration
 * change of only {@code activeStrategy} switches the strategy in place; any other change replaces
 * the transport. Every value is checked before anything is stopped: a bad one (a value SCR cannot
 * convert, one out of range, a provider name no provider has) is refused with one ERROR line
 * naming the property and the value, the previous configuration keeps running, and the
 * {@link RdmaTransportStatus} service (the console) says so. A key no setting has is named in a
 * WARN line with the nearest known one.
 *
 * <p>Threading: DS calls arrive on any thread; one lock orders them.
 */
@Component(configurationPid = RdmaTransportComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {}, immediate = true)
@Designate(ocd = RdmaTransportConfig.class)
public final class RdmaTransportComponent {
    /** Configuration PID: {@code etc/org.rpcrdma4j.transport.cfg} in Karaf. */
    public static final String PID = "org.rpcrdma4j.transport";
    /** Service property naming the verbs provider a registered transport uses. */
    public static final String PROVIDER_PROPERTY = "rpcrdma4j.transport.provider";

    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransportComponent.class);

    private final Map<String, VerbsProvider> providers = new ConcurrentHashMap<>();
    private final List<RegistrationStrategy> strategies = new CopyOnWriteArrayList<>();
    private final List<UpperLayerBinding> bindings = new CopyOnWriteArrayList<>();
    private BundleContext context;
    private TransportSettings settings;
    private RdmaHostedTransport serving;
    private VerbsProvider servingProvider;
    private ServiceRegistration<?> registration;
    private ServiceRegistration<RdmaTransportStatus> statusRegistration;
    /** What {@link RdmaTransportStatus#state()} says; written under the lock, read by any thread. */
    private volatile String state = "starting";
    /** What {@link RdmaTransportStatus#refusal()} says. */
    private volatile String refusal;
    /** The last choice of provider 'auto' logged, so each change is logged once. */
    private String lastAutoChoice;

    @Activate
    synchronized void activate(BundleContext bundleContext, RdmaTransportConfig config, Map<String, Object> properties) {
        this.context = bundleContext;
        try {
            settings = check(config, properties);
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage(), "the RDMA transport is not serving until it is corrected");
            settings = null;
        }
        statusRegistration = bundleContext.registerService(RdmaTransportStatus.class, new Status(), null);
        reconcile();
    }

    @Modified
    synchronized void modified(RdmaTransportConfig config, Map<String, Object> properties) {
        TransportSettings next;
        try {
            next = check(config, properties);
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage(), settings == null ? "the RDMA transport stays stopped"
                    : "the previous configuration keeps running");
            return;
        }
        TransportSettings previous = settings;
        settings = next;
        if (previous != null && serving != null && previous.sameExceptStrategy(next)) {
            if (next.activeStrategy() != null) {
                try {
                    serving.activateStrategy(next.activeStrategy());
                    LOG.info("RDMA transport: registration strategy '{}' is now active", next.activeStrategy());
                } catch (IllegalArgumentException e) {
                    LOG.warn("Configuration {}: activeStrategy refused: {}; it becomes active when it is registered",
                            PID, e.getMessage());
                }
            }
            return;
        }
        unpublish();
        reconcile();
    }

    /**
     * Checks a configuration as a whole, before anything is stopped for it, and warns of keys no
     * setting has.
     *
     * @throws IllegalArgumentException naming the property and the value refused
     */
    private TransportSettings check(RdmaTransportConfig config, Map<String, Object> properties) {
        Map<String, Object> raw = properties == null ? Map.of() : properties;
        TransportSettings next = TransportSettings.of(config, raw);
        TransportSettings.checkProvider(next.provider(), providers.keySet());
        for (String warning : ConfigKeys.unknown(raw)) {
            LOG.warn("Configuration {}: {}", PID, warning);
        }
        refusal = null;
        return next;
    }

    private void refuse(String reason, String consequence) {
        LOG.error("Configuration {} refused: {}; {}", PID, reason, consequence);
        refusal = "configuration " + PID + " refused: " + reason + "; " + consequence;
        if (serving == null) {
            state = "not serving: " + refusal;
        }
    }

    @Deactivate
    synchronized void deactivate() {
        unpublish();
        if (statusRegistration != null) {
            try {
                statusRegistration.unregister();
            } catch (IllegalStateException e) {
                // Already unregistered: the bundle is stopping.
            }
            statusRegistration = null;
        }
        context = null;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindProvider(VerbsProvider provider) {
        providers.put(provider.name(), provider);
        if (serving != null && settings != null && ProviderChoice.AUTO.equals(settings.provider())
                && ProviderChoice.choose(settings.provider(), providers).provider() != servingProvider) {
            LOG.info("Verbs provider '{}' arrived and provider 'auto' prefers it: the RDMA transport restarts on it",
                    provider.name());
            unpublish();
        }
        reconcile();
    }

    synchronized void unbindProvider(VerbsProvider provider) {
        providers.remove(provider.name(), provider);
        if (provider == servingProvider) {
            LOG.info("Verbs provider '{}' went away: the RDMA transport stops until it is back", provider.name());
            unpublish();
        }
        reconcile();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindStrategy(RegistrationStrategy strategy) {
        strategies.add(strategy);
        if (serving != null) {
            serving.addStrategy(strategy);
        }
    }

    synchronized void unbindStrategy(RegistrationStrategy strategy) {
        strategies.remove(strategy);
        if (serving != null) {
            serving.removeStrategy(strategy);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindBinding(UpperLayerBinding binding) {
        bindings.add(binding);
        if (serving != null) {
            serving.addBinding(binding);
        }
    }

    synchronized void unbindBinding(UpperLayerBinding binding) {
        bindings.remove(binding);
        if (serving != null) {
            serving.removeBinding(binding);
        }
    }

    /** Serve when configured, enabled and the provider is present; otherwise make sure nothing is registered. */
    private void reconcile() {
        if (context == null || serving != null || settings == null) {
            return;
        }
        if (!settings.enabled()) {
            state = "disabled (enabled = false in configuration " + PID + ")";
            return;
        }
        ProviderChoice choice = ProviderChoice.choose(settings.provider(), providers);
        VerbsProvider provider = choice.provider();
        if (ProviderChoice.AUTO.equals(settings.provider())) {
            String line = choice.provider() == null ? "waiting: " + choice.reason()
                    : "uses '" + choice.name() + "': " + choice.reason();
            if (!line.equals(lastAutoChoice)) {
                LOG.info("RDMA transport: provider 'auto' {}", line);
                lastAutoChoice = line;
            }
        }
        if (provider == null) {
            LOG.info("RDMA transport waiting for verbs provider '{}' (present: {})", settings.provider(), providers.keySet());
            state = "waiting for verbs provider '" + settings.provider() + "': " + choice.reason();
            return;
        }
        RdmaHostedTransport transport = RdmaHostedTransport.builder(provider)
                .address(new InetSocketAddress(settings.bindAddress(), settings.port()))
                .config(settings.transportConfig())
                .replyCacheEntries(settings.replyCacheEntries())
                .replyCacheMaxReplyBytes(settings.replyCacheMaxReplyBytes())
                .preferredStrategy(settings.activeStrategy())
                .build();
        strategies.forEach(transport::addStrategy);
        bindings.forEach(transport::addBinding);
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(PROVIDER_PROPERTY, provider.name());
        properties.put("rpcrdma4j.transport.port", settings.port());
        serving = transport;
        servingProvider = provider;
        registration = context.registerService(new String[] {HostedTransport.class.getName(),
            RdmaTransportControl.class.getName()}, transport, properties);
        state = "serving over '" + provider.name() + "' on " + settings.bindAddress() + ":" + settings.port();
    }

    /** Withdraw the served transport: the host stops it; stopping again here covers a host that never started it. */
    private void unpublish() {
        ServiceRegistration<?> r = registration;
        RdmaHostedTransport t = serving;
        registration = null;
        serving = null;
        servingProvider = null;
        if (r != null) {
            try {
                r.unregister();
            } catch (IllegalStateException e) {
                // Already unregistered: the bundle is stopping.
            }
        }
        if (t != null) {
            t.stop();
        }
        state = refusal != null ? "not serving: " + refusal : "stopped";
    }

    /** The operator's view of this component, for the console. */
    private final class Status implements RdmaTransportStatus {
        @Override
        public String state() {
            return state;
        }

        @Override
        public String refusal() {
            return refusal;
        }
    }
}
