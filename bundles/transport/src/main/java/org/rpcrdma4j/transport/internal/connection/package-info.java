/**
 * A connection and its resources (Linux: {@code svc_rdma_transport.c}): the connection's state
 * machine from connect request to the release of everything it held
 * ({@link org.rpcrdma4j.transport.internal.connection.ConnectionState}), its queue pair's sizing,
 * its back channel, and the per-loop device resources it shares with the loop's other connections.
 *
 * <p>The engine that drives connections (acceptor and completion loops) is the parent package.
 */
package org.rpcrdma4j.transport.internal.connection;
