/**
 * XDR primitives and the RPC-over-RDMA version 1 transport header (RFC 8166), with the
 * RFC 8797 connection private data.
 *
 * <p>This package depends on nothing but {@code java.base}: no OSGi, verbs provider or
 * Grizzly type appears here, so the codec can be used, tested and fuzzed on its own.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.codec;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
