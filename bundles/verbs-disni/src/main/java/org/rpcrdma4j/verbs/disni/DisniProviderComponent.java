package org.rpcrdma4j.verbs.disni;

import java.util.Hashtable;
import java.util.List;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declarative Services: registers a {@link DisniProvider} as a {@link VerbsProvider} service named
 * {@value DisniProvider#NAME} when DiSNI can run in this JVM, and closes it on deactivation. Thin
 * by design: the logic lives in {@link DisniProvider}. Configuration PID
 * {@code org.rpcrdma4j.verbs.disni}.
 *
 * <p>Where DiSNI cannot run (no rdma-core on the host, libdisni not built into the fragment, or
 * sun.nio.ch not reachable) the component refuses to start the provider with one WARN line naming
 * the cause and registers nothing: the rest of the server keeps working, and
 * {@code provider = auto} serves over the loopback provider. On a machine with rdma-core but
 * without an RDMA device the service registers and lists no device.
 */
@Component(service = {}, immediate = true, configurationPid = "org.rpcrdma4j.verbs.disni")
@Designate(ocd = DisniProviderComponent.Config.class)
public final class DisniProviderComponent implements VerbsProvider {
    /** Configuration of the DiSNI provider. */
    @ObjectClassDefinition(name = "rpcrdma4j DiSNI verbs provider")
    public @interface Config {
        /**
         * @return the inline limit the devices report (verbs have no query for it)
         */
        @AttributeDefinition(min = "0", max = "1024", description = "Most bytes a SEND carries inline (IBV_SEND_INLINE), "
                + "0..1024; verbs offer no query for the device's limit, and a device refuses a queue pair asking for more "
                + "than it supports")
        int maxInlineData() default DisniProvider.DEFAULT_MAX_INLINE_DATA;
    }

    private static final Logger LOG = LoggerFactory.getLogger(DisniProviderComponent.class);

    private final int maxInlineData;
    private final Supplier<String> availability;
    private volatile DisniProvider provider;
    private ServiceRegistration<VerbsProvider> registration;

    /**
     * Creates the component; the provider starts in {@link #activate}.
     *
     * @param config the configuration
     * @throws IllegalArgumentException when maxInlineData is outside 0..{@value DisniProvider#MAX_MAX_INLINE_DATA}
     */
    @Activate
    public DisniProviderComponent(Config config) {
        this(config, DisniAvailability::unavailableReason);
    }

    /**
     * @param config the configuration
     * @param availability null when DiSNI can run, else why not (tests pass their own)
     */
    DisniProviderComponent(Config config, Supplier<String> availability) {
        this.maxInlineData = DisniProvider.checkedMaxInlineData(config.maxInlineData());
        this.availability = availability;
    }

    /**
     * Starts the provider and registers it, or logs the one line saying why DiSNI cannot run here.
     *
     * @param context the bundle's context (null in unit tests: nothing is registered)
     */
    @Activate
    synchronized void activate(BundleContext context) {
        String refusal = availability.get();
        if (refusal != null) {
            LOG.warn("DiSNI verbs provider not started: {}. The other verbs providers keep serving (provider = auto "
                    + "uses loopback).", refusal);
            return;
        }
        provider = new DisniProvider(maxInlineData);
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(VerbsProvider.PROVIDER_NAME, DisniProvider.NAME);
        if (context != null) {
            registration = context.registerService(VerbsProvider.class, this, properties);
        }
    }

    @Override
    public String name() {
        return DisniProvider.NAME;
    }

    @Override
    public List<VerbsDevice> devices() throws VerbsException {
        return started().devices();
    }

    @Override
    public ConnectionManager openConnectionManager() throws VerbsException {
        return started().openConnectionManager();
    }

    @Override
    public CompletionChannel openCompletionChannel() throws VerbsException {
        return started().openCompletionChannel();
    }

    /** Unregisters, then releases the probe ids; consumers MUST have released their resources (DS unbinds them first). */
    @Deactivate
    synchronized void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping
            }
            registration = null;
        }
        DisniProvider p = provider;
        provider = null;
        if (p != null) {
            p.close();
        }
    }

    /** @return whether {@link #activate} started the provider */
    boolean isStarted() {
        return provider != null;
    }

    private DisniProvider started() throws VerbsException {
        DisniProvider p = provider;
        if (p == null) {
            throw new VerbsException("the DiSNI provider is not started", Errno.EBADF);
        }
        return p;
    }
}
