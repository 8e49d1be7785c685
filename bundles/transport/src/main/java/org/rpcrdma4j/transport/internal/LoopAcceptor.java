package org.rpcrdma4j.transport.internal;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.transport.internal.connection.DeviceResources;
import org.rpcrdma4j.transport.internal.connection.QueuePairSizing;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LoopAcceptor - one completion loop's answer to a connect request the acceptor handed it: set
 * up the connection on the loop's device resources and accept it, or reject it (the transport is
 * stopping, or its resources or the accept failed), releasing exactly what was set up.
 *
 * <p>Threading: the loop's leader only.
 */
final class LoopAcceptor {
    /** The loop's logger: the lines keep their category. */
    private static final Logger LOG = LoggerFactory.getLogger(CompletionLoop.class);

    private final CompletionLoop loop;
    private final TransportEngine engine;
    private final TransportConfig config;
    private final LoopDevices devices;

    LoopAcceptor(CompletionLoop loop, TransportEngine engine, LoopDevices devices) {
        this.loop = loop;
        this.engine = engine;
        this.config = engine.config();
        this.devices = devices;
    }

    /**
     * accept() - the connect request in {@code event}.
     *
     * @return the opened connection, for the loop to serve; null when it was rejected (counted,
     *         logged, and the transport told it is gone)
     */
    ConnectionState accept(HandedEvent event) {
        Connection connection = event.connection;
        if (engine.isCloseRequested()) {
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: the transport is stopping", connection.remoteAddress());
            ConnectionState.rejectAndClose(connection);
            return null;
        }
        ConnectionState state;
        QueuePairSizing sizing;
        try {
            DeviceResources device = devices.deviceFor(connection.device());
            sizing = QueuePairSizing.of(config, connection.device().capabilities());
            state = new ConnectionState(loop, connection, device, event.peer);
        } catch (VerbsException | RuntimeException e) {
            engine.counters().increment(Counter.ACCEPT_FAILURES);
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: its resources could not be set up: {}",
                    connection.remoteAddress(), e.toString());
            ConnectionState.rejectAndClose(connection);
            return null;
        }
        try {
            state.open(sizing);
        } catch (VerbsException | RuntimeException e) {
            engine.counters().increment(Counter.ACCEPT_FAILURES);
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: accepting it failed: {}", connection.remoteAddress(),
                    e.toString());
            return null;
        }
        return state;
    }
}
