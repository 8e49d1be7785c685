/**
 * The RPC-over-RDMA (RFC 8166) server transport: {@link org.rpcrdma4j.transport.RdmaTransport}
 * accepts connections, receives calls into pooled, registered receive buffers, pulls read chunks
 * with RDMA READ and hands each call to an {@link org.rpcrdma4j.transport.RpcCallHandler} as a
 * zero-copy {@link org.rpcrdma4j.transport.ReceivedCall}.
 *
 * <p>Threading model: one thread drives {@link org.rpcrdma4j.transport.RdmaTransport#doWork()}
 * (connection events, completions, READ scheduling, receive reposting); handlers run on it and
 * MAY pass calls to other threads, which release them from there.
 */
@Export
@Version("0.6.0")
package org.rpcrdma4j.transport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
