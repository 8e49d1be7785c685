package org.rpcrdma4j.transport.oncrpc;

import org.rpcrdma4j.transport.RdmaConnection;

/**
 * CallTransportPool - the reusable {@link CallTransport}s (each with its {@link CallXdr}) of one
 * connection, so a call through the oncrpc4j bridge does not build its task, its RPC transport
 * and its XDR stream anew.
 *
 * <p>Bounded by twice the credits the connection grants (what a client that keeps to its credits
 * has in flight, with room for replies still being posted): made lazily, so a connection with
 * one call in flight holds one; beyond the bound a call gets a transport outside the pool, which
 * the collector takes when it is done.
 *
 * <p>Threading: any thread (taken on the completion loop, returned by a worker); a short lock
 * that is almost never contended, and no allocation once warm.
 */
final class CallTransportPool {
    private final CallBridge bridge;
    private final RdmaConnection connection;
    private final CallTransport[] free;
    private int freeCount;
    private int created;

    CallTransportPool(CallBridge bridge, RdmaConnection connection) {
        this.bridge = bridge;
        this.connection = connection;
        this.free = new CallTransport[Math.max(1, 2 * connection.grantedCredits())];
    }

    /** @return a free transport of this connection, made when the pool has none yet */
    CallTransport acquire() {
        synchronized (this) {
            if (freeCount > 0) {
                CallTransport transport = free[--freeCount];
                free[freeCount] = null;
                return transport;
            }
            if (created < free.length) {
                created++;
                return new CallTransport(bridge, connection, this);
            }
        }
        return new CallTransport(bridge, connection, null);
    }

    /** release() - a transport whose call is finished comes back (called by {@link CallTransport} only). */
    synchronized void release(CallTransport transport) {
        if (freeCount == free.length) {
            throw new IllegalStateException(transport + " returned to a full pool");
        }
        free[freeCount++] = transport;
    }
}
