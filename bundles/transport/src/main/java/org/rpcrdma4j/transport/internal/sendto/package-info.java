/**
 * The reply path (Linux: {@code svc_rdma_sendto.c} and the WRITE half of {@code svc_rdma_rw.c}):
 * pooled per-call reply contexts that keep the chunk lists parsed at receive time
 * ({@link org.rpcrdma4j.transport.internal.sendto.ReplyJob}), the choice between an inline reply,
 * write chunks and a reply chunk ({@link org.rpcrdma4j.transport.internal.sendto.ReplySender}), the
 * send queue with its registered send buffers ({@link org.rpcrdma4j.transport.internal.sendto.SendQueue}),
 * the reply staging that RDMA WRITEs read from (a loop's slab, a connection's share of it), and
 * the protocol's error replies ({@link org.rpcrdma4j.transport.internal.sendto.ErrorReplies}).
 *
 * <p>Layering: uses {@code common} only; the connection a reply goes out on is seen here as a
 * {@link org.rpcrdma4j.transport.internal.sendto.ReplyConnection}.
 *
 * <p>Threading: under the connection's send lock (the loop, or the worker that built the reply).
 */
package org.rpcrdma4j.transport.internal.sendto;
