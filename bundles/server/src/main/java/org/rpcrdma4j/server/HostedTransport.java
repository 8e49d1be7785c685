package org.rpcrdma4j.server;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A transport the host server serves its programs over: oncrpc4j's TCP service, or an
 * RPC-over-RDMA transport. In OSGi, transports are services the host discovers and
 * hot-plugs; without OSGi, they are handed to {@link HostServer#addTransport}.
 *
 * <p>Lifecycle: {@link #start} once, then {@link #stop} once. The host calls both; a
 * transport MUST NOT be started by two hosts.
 */
public interface HostedTransport {

    /** A short name for logs and shell listings, e.g. "tcp" or "rdma". */
    String name();

    /**
     * Starts serving: from now on, received calls go to {@code dispatcher}, whose
     * {@link RpcCallDispatcher#programs() program table} is live.
     *
     * @throws IOException when the transport cannot listen (address in use, no device);
     *         the transport is then not serving and holds nothing
     */
    void start(RpcCallDispatcher dispatcher) throws IOException;

    /**
     * Stops serving: closes the listening endpoint and every connection. Calls already
     * dispatched finish; their replies go out if the connection still stands, and are
     * otherwise dropped with a log line. Never throws; idempotent.
     */
    void stop();

    /** The address the transport listens on, once started; {@code null} before. */
    InetSocketAddress localAddress();
}
