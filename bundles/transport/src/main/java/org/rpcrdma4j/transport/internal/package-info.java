/**
 * The transport's engine (not exported): the acceptor and the completion loops that own
 * connections ({@link org.rpcrdma4j.transport.internal.TransportEngine},
 * {@link org.rpcrdma4j.transport.internal.CompletionLoop}), and below it one package per path, laid
 * out like the Linux files they mirror: {@code connection} (svc_rdma_transport.c), {@code backchannel}
 * (svc_rdma_backchannel.c), {@code recvfrom} (svc_rdma_recvfrom.c), {@code read} (the READ half of
 * svc_rdma_rw.c), {@code sendto} (svc_rdma_sendto.c and the WRITE half of svc_rdma_rw.c), and
 * {@code common}, what every path shares.
 *
 * <p>Layers, top down in that list: each package uses only those below it, and none uses this
 * one. What a lower package needs from above it defines as an interface, which the package
 * above implements and hands in at construction: this package's loop is a
 * {@link org.rpcrdma4j.transport.internal.connection.ConnectionLoop} to its connections.
 */
package org.rpcrdma4j.transport.internal;
