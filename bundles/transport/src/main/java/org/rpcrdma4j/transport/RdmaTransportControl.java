package org.rpcrdma4j.transport;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * RdmaTransportControl - the operator's view of one running RPC-over-RDMA transport as the host
 * server serves it: where it listens, which verbs provider it uses, its connections and counters,
 * and the registration strategies it may pull read chunks with. In OSGi the transport component
 * registers this service next to its {@code HostedTransport}; the {@code rpcrdma:*} shell commands
 * use it.
 *
 * <p>Threading: every method is safe from any thread.
 */
public interface RdmaTransportControl {
    /** @return the name the host server lists the transport under ("rdma") */
    String name();

    /** @return the bound address while serving, null when stopped */
    InetSocketAddress localAddress();

    /** @return the name of the verbs provider in use ("loopback", "disni") */
    String providerName();

    /** @return the settings in force */
    TransportConfig config();

    /** @return the transport's counters, or null when stopped */
    TransportStatistics statistics();

    /** @return the live connections (a snapshot; empty when stopped) */
    List<RdmaConnection> connections();

    /** @return the names of the registered registration strategies, the active one first */
    List<String> strategies();

    /** @return the active strategy's name, or null when none is registered */
    String activeStrategy();

    /**
     * activateStrategy() - make new calls' READs use this strategy; calls already reading keep
     * theirs.
     *
     * @param name a registered strategy's name
     * @throws IllegalArgumentException naming the strategies registered when none has that name
     */
    void activateStrategy(String name);
}
