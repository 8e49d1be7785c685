package org.rpcrdma4j.verbs.loopback;

import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Declarative Services: registers a threaded {@link LoopbackProvider} as a {@link VerbsProvider}
 * service named {@value LoopbackProvider#NAME}, and closes its fabric on deactivation. Thin by
 * design: the logic lives in {@link LoopbackProvider} and {@link LoopbackFabric}.
 */
@Component(service = VerbsProvider.class, property = VerbsProvider.PROVIDER_NAME + "=" + LoopbackProvider.NAME)
public final class LoopbackProviderComponent implements VerbsProvider {
    private final LoopbackProvider provider;

    /** Creates the provider and its fabric. */
    @Activate
    public LoopbackProviderComponent() {
        this.provider = new LoopbackProvider();
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public List<VerbsDevice> devices() {
        return provider.devices();
    }

    @Override
    public ConnectionManager openConnectionManager() throws VerbsException {
        return provider.openConnectionManager();
    }

    @Override
    public CompletionChannel openCompletionChannel() throws VerbsException {
        return provider.openCompletionChannel();
    }

    /** Stops the fabric; consumers MUST have released their resources (DS unbinds them first). */
    @Deactivate
    void deactivate() {
        provider.close();
    }
}
