package org.rpcrdma4j.verbs;

import java.util.List;

/**
 * An RDMA device (an {@code ibv_context}): its capabilities, and the factory of the resources
 * that live on it.
 *
 * <p>A device is owned by its provider; consumers MUST NOT close it. Resources created here are
 * owned by the caller. Methods are safe to call from any thread.
 */
public interface VerbsDevice {
    /** @return the device name, e.g. {@code "rxe0"} or {@code "mlx5_0"} */
    String name();

    /** @return the device's capabilities */
    DeviceCapabilities capabilities();

    /**
     * The device's ports with their state and IP addresses, for operators ({@code rpcrdma:devices})
     * and for choosing a provider. Read afresh at each call (a port goes down, an address is
     * added); not for a hot path.
     *
     * @return the ports, in port-number order; empty when the provider cannot tell
     */
    default List<DevicePort> ports() {
        return List.of();
    }

    /**
     * Allocates a protection domain on this device (ibv_alloc_pd).
     *
     * <p>Ownership: the caller owns it and MUST close it after every memory region and queue pair
     * created in it is gone.
     *
     * @return a new protection domain
     * @throws VerbsException when the device refuses
     */
    ProtectionDomain allocateProtectionDomain() throws VerbsException;

    /**
     * Creates a completion queue with its notification channel (ibv_create_comp_channel +
     * ibv_create_cq).
     *
     * <p>Ownership: the caller owns it and MUST close it after every queue pair using it is
     * destroyed.
     *
     * @param capacity the minimum number of entries; it MUST cover every work request that can
     *        complete into it at once (the sum of the depths of the queues attached), else the
     *        queue overflows
     * @return a new completion queue
     * @throws VerbsException EINVAL when capacity is not within 1..
     *         {@link DeviceCapabilities#maxCompletionQueueEntries()}
     */
    CompletionQueue createCompletionQueue(int capacity) throws VerbsException;
}
