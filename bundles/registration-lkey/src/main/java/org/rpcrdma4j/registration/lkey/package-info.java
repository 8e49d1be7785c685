/**
 * The local-lkey registration strategy: READ sinks carved from one long-lived slab registered
 * once per protection domain, read into page by page under the slab's lkey (the seed's
 * {@code rdma_read_chunk_lcl}). Cheapest per READ; the slab stays writable by the local device
 * only. On iWARP, where a READ shows its sink's key to the peer and the sink needs remote write,
 * each sink is instead registered for the duration of one READ: no remote key outlives its I/O.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.registration.lkey;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
