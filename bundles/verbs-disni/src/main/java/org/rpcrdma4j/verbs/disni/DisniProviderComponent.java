package org.rpcrdma4j.verbs.disni;

import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Declarative Services: registers a {@link DisniProvider} as a {@link VerbsProvider} service named
 * {@value DisniProvider#NAME}, and closes it on deactivation. Thin by design: the logic lives in
 * {@link DisniProvider}. Configuration PID {@code org.rpcrdma4j.verbs.disni}.
 *
 * <p>The service registers even on a machine without RDMA devices ({@link #devices()} is empty
 * there) or without a loadable libdisni (the calls fail with a VerbsException naming the cause):
 * consumers choose a provider by name and see why it cannot serve.
 */
@Component(service = VerbsProvider.class, configurationPid = "org.rpcrdma4j.verbs.disni",
        property = VerbsProvider.PROVIDER_NAME + "=" + DisniProvider.NAME)
@Designate(ocd = DisniProviderComponent.Config.class)
public final class DisniProviderComponent implements VerbsProvider {
    /** Configuration of the DiSNI provider. */
    @ObjectClassDefinition(name = "rpcrdma4j DiSNI verbs provider")
    public @interface Config {
        /**
         * @return the inline limit the devices report (verbs have no query for it)
         */
        @AttributeDefinition(description = "Most bytes a SEND carries inline (IBV_SEND_INLINE); verbs offer no query for the device's limit")
        int maxInlineData() default DisniProvider.DEFAULT_MAX_INLINE_DATA;
    }

    private final DisniProvider provider;

    /**
     * Creates the provider.
     *
     * @param config the configuration
     * @throws IllegalArgumentException when maxInlineData is negative
     */
    @Activate
    public DisniProviderComponent(Config config) {
        if (config.maxInlineData() < 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative: " + config.maxInlineData());
        }
        this.provider = new DisniProvider(config.maxInlineData());
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public List<VerbsDevice> devices() throws VerbsException {
        return provider.devices();
    }

    @Override
    public ConnectionManager openConnectionManager() throws VerbsException {
        return provider.openConnectionManager();
    }

    /** Releases the probe ids; consumers MUST have released their resources (DS unbinds them first). */
    @Deactivate
    void deactivate() {
        provider.close();
    }
}
