/**
 * The transport's engine (not exported): the acceptor and the completion loops that own
 * connections ({@link org.rpcrdma4j.transport.internal.TransportEngine},
 * {@link org.rpcrdma4j.transport.internal.CompletionLoop}), and below it one package per path, laid
 * out like the Linux files they mirror: {@code recvfrom} (svc_rdma_recvfrom.c), {@code read} (the
 * READ half of svc_rdma_rw.c), {@code sendto} (svc_rdma_sendto.c and the WRITE half of
 * svc_rdma_rw.c) and {@code connection} (svc_rdma_transport.c).
 */
package org.rpcrdma4j.transport.internal;
