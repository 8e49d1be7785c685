/**
 * The receive path (Linux: {@code svc_rdma_recvfrom.c}): receive contexts and their pool, the
 * dispatch of each arrived message by its RPC-over-RDMA header (calls, backward replies, errors
 * answered with ERR_VERS/ERR_CHUNK), and the assembly of a call whose read chunks the READ engine
 * pulled ({@link org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.ReceivePool},
 * {@link org.rpcrdma4j.transport.internal.recvfrom.CallAssembler}).
 *
 * <p>Threading: the owning connection's completion loop.
 */
package org.rpcrdma4j.transport.internal.recvfrom;
