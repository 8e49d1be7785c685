/**
 * The backward direction of a connection (RFC 8167; Linux: {@code svc_rdma_backchannel.c}):
 * backward calls queued by the RPC layer and sent inline within the client's backward credits,
 * and the client's replies to them, which the receive path hands over through
 * {@link org.rpcrdma4j.transport.internal.recvfrom.BackwardReplies}
 * ({@link org.rpcrdma4j.transport.internal.backchannel.ConnectionBackchannel}).
 *
 * <p>Layering: above the receive path (a backward reply arrives in a receive context) and the
 * send queue (a backward call is a SEND), below the connection that wires it. What it needs of
 * the completion loop it gets through {@link org.rpcrdma4j.transport.internal.backchannel.BackchannelLoop}.
 *
 * <p>Threading: backward calls from any thread; replies, sends and the close on the completion loop.
 */
package org.rpcrdma4j.transport.internal.backchannel;
