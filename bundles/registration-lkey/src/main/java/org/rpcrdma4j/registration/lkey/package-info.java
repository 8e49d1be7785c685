/**
 * The local-lkey registration strategy: READ sinks carved from one long-lived slab registered
 * once per protection domain, read into page by page under the slab's lkey (the seed's
 * {@code rdma_read_chunk_lcl}). Cheapest per READ; the whole slab stays writable by the device
 * (and, on iWARP, by the peer) for the life of the pool.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.registration.lkey;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
