/**
 * A connection and its resources (Linux: {@code svc_rdma_transport.c}): the connection's state
 * machine from connect request to the release of everything it held
 * ({@link org.rpcrdma4j.transport.internal.connection.ConnectionState}), its queue pair's sizing,
 * and the per-loop device resources it shares with the loop's other connections.
 *
 * <p>Layering: the connection wires the receive path, the READ engine, the reply path and the
 * back channel into one connection, and implements the interfaces they define for what they need
 * of it ({@link org.rpcrdma4j.transport.internal.sendto.ReplyConnection},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.ReceivingConnection},
 * {@link org.rpcrdma4j.transport.internal.read.SinkPools}). The completion loop that drives it (the
 * parent package) is above it and is seen here only as a
 * {@link org.rpcrdma4j.transport.internal.connection.ConnectionLoop}.
 */
package org.rpcrdma4j.transport.internal.connection;
