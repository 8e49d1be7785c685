package org.rpcrdma4j.verbs;

import java.net.InetSocketAddress;

/**
 * A bound, listening connection-manager id (rdma_bind_addr + rdma_listen). Connect requests to its
 * address arrive as {@link ConnectionEventType#CONNECT_REQUEST} events on its manager.
 *
 * <p>Ownership: owned by the caller of {@link ConnectionManager#listen}, who MUST close it;
 * connections it produced are not affected by closing it.
 */
public interface ListeningEndpoint extends AutoCloseable {
    /** @return the bound address, with the port actually assigned when 0 was asked for */
    InetSocketAddress localAddress();

    /** Stops listening. Closing twice does nothing. */
    @Override
    void close();
}
