package org.rpcrdma4j.transport.spi;

import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * A way of registering RDMA READ sinks (the seed's {@code rdma_read_chunk_lcl} and
 * {@code rdma_read_chunk_frmr} readers, as pluggable services).
 *
 * <p>Discovery: in OSGi a strategy is a service of this type with the service property
 * {@link #STRATEGY_NAME} equal to {@link #name()}; on the module path it is declared with
 * {@code provides org.rpcrdma4j.transport.spi.RegistrationStrategy with ...}.
 *
 * <p>Threading: implementations MUST be stateless and safe to call from any thread; all state
 * lives in the pools they create.
 */
public interface RegistrationStrategy {
    /** The service property carrying {@link #name()} on an OSGi service registration. */
    String STRATEGY_NAME = "rpcrdma4j.registration.strategy";

    /** @return the strategy's short, stable name, e.g. {@code "lkey"} or {@code "frmr"} */
    String name();

    /**
     * createSinkPool() - set up the sink memory of one protection domain.
     *
     * <p>Assumptions: called on the transport's completion thread. Ownership: the caller owns the
     * returned pool and MUST {@link SinkPool#close() close} it once every sink it handed out has
     * been freed; the domain MUST outlive the pool.
     *
     * @param protectionDomain the domain the transport's queue pairs live in
     * @param parameters how much sink memory, and in which pieces
     * @return a new pool
     * @throws VerbsException when the device refuses memory or regions (nothing is left
     *         allocated)
     */
    SinkPool createSinkPool(ProtectionDomain protectionDomain, SinkPoolParameters parameters) throws VerbsException;
}
