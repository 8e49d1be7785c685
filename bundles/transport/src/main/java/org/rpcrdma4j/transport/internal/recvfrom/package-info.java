/**
 * The receive path (Linux: {@code svc_rdma_recvfrom.c}): receive contexts and their pool, the
 * dispatch of each arrived message by its RPC-over-RDMA header (calls, backward replies, errors
 * answered with ERR_VERS/ERR_CHUNK), and the assembly of a call whose read chunks the READ engine
 * pulled ({@link org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.ReceivePool},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.CallAssembler}).
 *
 * <p>Layering: uses the READ engine, the reply path and {@code common} only. The connection a call
 * arrives on, the loop that receives it and the back channel that takes backward replies are
 * above it, seen here as {@link org.rpcrdma4j.transport.internal.recvfrom.ReceivingConnection},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.ReceivingLoop} and
 * {@link org.rpcrdma4j.transport.internal.recvfrom.BackwardReplies}.
 *
 * <p>Threading: the owning connection's completion loop.
 */
package org.rpcrdma4j.transport.internal.recvfrom;
