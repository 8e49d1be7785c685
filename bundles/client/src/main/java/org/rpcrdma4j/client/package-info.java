/**
 * An RPC-over-RDMA version 1 client (RFC 8166) over the verbs contract: the requester side, for
 * tests, benchmarks and the shell.
 *
 * <p>{@link org.rpcrdma4j.client.RpcRdmaClient} connects with RFC 8797 private data, sends calls
 * inline (RDMA_MSG), with read chunks, or as RDMA_NOMSG with a position-zero read chunk, offers
 * write and reply chunks, matches replies by xid and honours the server's credit grants. A
 * {@link org.rpcrdma4j.client.CallRequest} describes one call; an
 * {@link org.rpcrdma4j.client.RpcReply} is what came back; RDMA_ERROR answers fail the call with
 * an {@link org.rpcrdma4j.client.RdmaErrorException}.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.client;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
