/**
 * The host server: serves every registered oncrpc4j {@code RpcDispatchable} program over
 * every transport present, and follows both as they come and go at runtime.
 *
 * <p>{@link org.rpcrdma4j.server.ProgramTable} is the live table of programs;
 * {@link org.rpcrdma4j.server.RpcCallDispatcher} turns a received RPC message into an
 * oncrpc4j call and runs it with the error mapping of oncrpc4j's own dispatcher, after
 * {@link org.rpcrdma4j.server.RpcHeaderCheck} has walked its RPC header (oncrpc4j trusts the
 * lengths a peer claims);
 * {@link org.rpcrdma4j.server.HostedTransport} is what a transport (oncrpc4j TCP,
 * RPC-over-RDMA) implements to be served; {@link org.rpcrdma4j.server.HostServer} ties them
 * together and is usable without OSGi.
 */
@Export
@Version("0.3.0")
package org.rpcrdma4j.server;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
