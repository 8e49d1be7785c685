/**
 * The oncrpc4j bridge: {@link org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport} serves the host
 * server's oncrpc4j programs over RPC-over-RDMA, as a {@code HostedTransport} next to oncrpc4j's own
 * TCP service.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.transport.oncrpc;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
