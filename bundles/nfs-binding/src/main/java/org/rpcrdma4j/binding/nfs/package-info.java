/**
 * The NFS upper-layer binding of RPC-over-RDMA (RFC 8267): which NFS replies carry a
 * DDP-eligible item, and where it lies, for NFSv3 (READ data, READLINK path) and NFSv4.x
 * (the first READ data or READLINK link text of a COMPOUND).
 *
 * <p>{@link org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding} is a
 * {@link org.rpcrdma4j.transport.spi.UpperLayerBinding} service for program 100003 (DS) and a
 * {@link java.util.ServiceLoader} provider on the module path; it also runs as a plain object.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.binding.nfs;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
