/**
 * The registration-strategy SPI: how the memory that RDMA READs pull read chunks into (the
 * <em>sinks</em>) is registered with the device.
 *
 * <p>A strategy is a stateless factory ({@link org.rpcrdma4j.transport.spi.RegistrationStrategy})
 * published as an OSGi service with the property
 * {@link org.rpcrdma4j.transport.spi.RegistrationStrategy#STRATEGY_NAME}, or declared for
 * {@link java.util.ServiceLoader} on the module path. Per protection domain the transport asks it
 * for a {@link org.rpcrdma4j.transport.spi.SinkPool}; each READ takes one
 * {@link org.rpcrdma4j.transport.spi.ReadSink} and the sink builds the work-request chain that
 * registers it, reads into it and invalidates it.
 *
 * <p>Threading: pools and sinks are confined to the transport's completion thread.
 */
@Export
@Version("0.4.0")
package org.rpcrdma4j.transport.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
