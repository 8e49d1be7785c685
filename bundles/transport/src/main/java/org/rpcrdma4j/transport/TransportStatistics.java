package org.rpcrdma4j.transport;

import java.util.Map;

/**
 * TransportStatistics - live counters of a transport or a connection.
 *
 * <p>Threading: safe to read from any thread while the transport runs; values only grow.
 */
public interface TransportStatistics {
    /**
     * @param counter which
     * @return its current value
     */
    long get(Counter counter);

    /** @return READs started per registration strategy name (a snapshot) */
    Map<String, Long> readsByStrategy();
}
