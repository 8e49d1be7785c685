package org.rpcrdma4j.verbs.loopback;

import java.util.List;

import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;

/**
 * The loopback verbs provider: the {@link VerbsProvider} view of a {@link LoopbackFabric}.
 *
 * <p>On the module path {@code ServiceLoader.load(VerbsProvider.class)} finds it through the public
 * no-argument constructor, which gives the provider its own threaded fabric (the fabric thread
 * starts with the first queue pair). Tests that need a deterministic fabric build one and use
 * {@link LoopbackFabric#provider()}.
 *
 * <p>Ownership: a provider made by the no-argument constructor owns its fabric and
 * {@link #close()} closes it; one obtained from a fabric does not (close the fabric instead).
 */
@ServiceProvider(value = VerbsProvider.class, resolution = Resolution.OPTIONAL)
public final class LoopbackProvider implements VerbsProvider, AutoCloseable {
    /** The provider's name. */
    public static final String NAME = "loopback";

    private final LoopbackFabric fabric;
    private final boolean ownsFabric;

    /** Creates a provider over its own threaded fabric (ServiceLoader, DS). */
    public LoopbackProvider() {
        this(LoopbackFabric.threaded(), true);
    }

    LoopbackProvider(LoopbackFabric fabric, boolean ownsFabric) {
        this.fabric = fabric;
        this.ownsFabric = ownsFabric;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<VerbsDevice> devices() {
        return List.of(fabric.device());
    }

    @Override
    public ConnectionManager openConnectionManager() throws VerbsException {
        fabric.lock.lock();
        try {
            fabric.checkOpen();
            return new LoopbackConnectionManager(fabric);
        } finally {
            fabric.lock.unlock();
        }
    }

    @Override
    public CompletionChannel openCompletionChannel() throws VerbsException {
        fabric.lock.lock();
        try {
            fabric.checkOpen();
            return new LoopbackCompletionChannel(fabric);
        } finally {
            fabric.lock.unlock();
        }
    }

    /** @return the fabric behind this provider (fault injection, mode) */
    public LoopbackFabric fabric() {
        return fabric;
    }

    /** Closes the fabric when this provider owns it. */
    @Override
    public void close() {
        if (ownsFabric) {
            fabric.close();
        }
    }
}
