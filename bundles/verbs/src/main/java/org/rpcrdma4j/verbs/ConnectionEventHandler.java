package org.rpcrdma4j.verbs;

/** Receives connection-manager events from {@link ConnectionManager#pollEvents}. */
@FunctionalInterface
public interface ConnectionEventHandler {
    /**
     * Handles one event on the thread that polls the manager.
     *
     * <p>The handler MUST NOT block for long (it holds up every connection of the manager) and
     * MUST NOT keep the event or its private-data buffer after returning. An exception it throws
     * reaches the caller of {@code pollEvents}; the event is acknowledged regardless.
     *
     * @param event the event, valid only during this call
     */
    void onConnectionEvent(ConnectionEvent event);
}
