package org.rpcrdma4j.verbs;

import java.util.List;

/**
 * The provider SPI: one implementation of the verbs contract (DiSNI over libibverbs/librdmacm,
 * the in-JVM loopback fabric, ...).
 *
 * <p>Discovery: in OSGi a provider is registered as a service of this type with the service
 * property {@link #PROVIDER_NAME} equal to {@link #name()}; on the module path it is declared with
 * {@code provides org.rpcrdma4j.verbs.VerbsProvider with ...} and found with
 * {@code ServiceLoader.load(VerbsProvider.class)} (the consumer module {@code uses} it).
 *
 * <p>Threading: all methods are safe to call from any thread. A provider instance is owned by
 * whoever created it (the DS runtime, or the application that loaded it); consumers MUST NOT
 * assume they may shut it down.
 */
public interface VerbsProvider {
    /** The service property carrying {@link #name()} on an OSGi service registration. */
    String PROVIDER_NAME = "rpcrdma4j.verbs.provider";

    /**
     * @return the provider's short, stable name, e.g. {@code "disni"} or {@code "loopback"}; used
     *         in configuration to select a provider
     */
    String name();

    /**
     * Lists the RDMA devices this provider can use.
     *
     * @return the devices, possibly empty when no hardware is present; never null
     * @throws VerbsException when the devices cannot be enumerated (e.g. the native library is
     *         missing)
     */
    List<VerbsDevice> devices() throws VerbsException;

    /**
     * Opens a connection manager: an event channel through which this caller listens, connects
     * and receives connection events.
     *
     * <p>Ownership: the caller owns the returned manager and MUST {@link ConnectionManager#close()}
     * it on every path.
     *
     * @return a new connection manager
     * @throws VerbsException when the event channel cannot be created
     */
    ConnectionManager openConnectionManager() throws VerbsException;

    /**
     * Opens a completion channel: one sleep for many completion queues on this provider's
     * devices, with a wake-up any thread can ring (see {@link CompletionChannel}).
     *
     * <p>Ownership: the caller owns the channel and MUST close it on every path.
     *
     * <p>A provider without one keeps this default; its consumers then poll (the transport falls
     * back to a spin, yield and park loop and says so in its log).
     *
     * @return a new channel
     * @throws VerbsException EOPNOTSUPP when the provider has no completion channel; otherwise
     *         when the channel or its wake-up descriptor cannot be created
     */
    default CompletionChannel openCompletionChannel() throws VerbsException {
        throw new VerbsException("verbs provider '" + name() + "' has no completion channel", Errno.EOPNOTSUPP);
    }
}
