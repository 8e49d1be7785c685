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
 *
 * <p>Typical use (a benchmark, the shell), with the client's own progress thread:
 * <pre>{@code
 * ClientConfig config = ClientConfig.builder().maxCredits(32).progressThread(true).build();
 * try (RpcRdmaClient client = RpcRdmaClient.connect(provider, new InetSocketAddress(host, 20049), config)) {
 *     // an NFS WRITE: the data (at XDR position 'offset' of the encoded call) goes in a read chunk
 *     RpcReply written = client.call(CallRequest.builder(writeCall).readChunk(offset, length).build(), timeout);
 *     // an NFS READ: the data comes back in a write chunk, the rest inline
 *     RpcReply read = client.call(CallRequest.builder(readCall).writeChunk(1 << 20).build(), timeout);
 *     ByteBuffer data = read.writeChunk(0);
 *     // a READDIR whose reply may exceed the inline size: offer a reply chunk
 *     RpcReply listing = client.call(CallRequest.builder(readdirCall).replyChunk(64 << 10).build(), timeout);
 * }
 * }</pre>
 * Deterministic tests leave the progress thread off and drive {@link
 * org.rpcrdma4j.client.RpcRdmaClient#doWork()} between steps of the loopback fabric; transport
 * tests corrupt calls with a {@link org.rpcrdma4j.client.HeaderMutator} or send
 * {@link org.rpcrdma4j.client.CallRequest#raw raw} bytes.
 */
@Export
@Version("0.2.0")
package org.rpcrdma4j.client;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
