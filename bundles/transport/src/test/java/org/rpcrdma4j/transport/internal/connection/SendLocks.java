package org.rpcrdma4j.transport.internal.connection;

import org.rpcrdma4j.transport.RdmaConnection;

/**
 * SendLocks - lets tests outside this package hold a connection's send lock as a worker posting
 * its reply does, so that the loop defers its passes over the connection meanwhile and then
 * takes everything that arrived in one pass.
 */
public final class SendLocks {
    private SendLocks() {
    }

    /**
     * whileHeld() - runs {@code action} holding {@code connection}'s send lock, and lets go of it
     * as a worker does (waking the loop when it deferred a pass).
     *
     * @param connection a connection of a transport (a ConnectionState)
     * @param action what to do meanwhile
     */
    public static void whileHeld(RdmaConnection connection, Runnable action) {
        ((ConnectionState) connection).underSendLock(action);
    }
}
