package org.rpcrdma4j.verbs.conformance;

import java.net.InetSocketAddress;

import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * What a provider's conformance test supplies: the provider under test, an address to listen on,
 * and a way to make the provider progress.
 *
 * <p>Ownership: the suite creates one fixture per test and closes it after every resource of the
 * test is released.
 */
public interface ConformanceFixture extends AutoCloseable {
    /** @return the provider under test */
    VerbsProvider provider();

    /**
     * @return the address the server side listens on; port 0 lets the provider choose. It MUST be
     *         reachable by a connection created on the same provider (e.g. the rxe interface's
     *         address, not a wildcard).
     */
    InetSocketAddress listenAddress();

    /**
     * The device the listen address belongs to: every connection of a test runs over it, and its
     * transport decides what the suite expects where InfiniBand/RoCE and iWARP differ. A fixture
     * whose provider lists several devices (the lab guest: rxe0 and siw0) names the right one.
     *
     * @return the device under test; by default the provider's first
     */
    default VerbsDevice device() throws VerbsException {
        return provider().devices().get(0);
    }

    /**
     * Lets the provider make progress once: a deterministic provider executes its pending work
     * here; a provider driven by hardware or its own threads returns 0.
     *
     * @return the amount of work done, 0 when none
     */
    int progress();

    /** Releases the provider's test resources (e.g. a fabric the fixture built). */
    @Override
    void close() throws Exception;
}
