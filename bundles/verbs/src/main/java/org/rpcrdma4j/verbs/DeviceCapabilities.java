package org.rpcrdma4j.verbs;

import java.util.Objects;

/**
 * What a device can do: the limits upper layers size their queues, SGE lists and READ pipelines
 * by, and the optional features a registration strategy chooses between.
 *
 * <p>Immutable; a provider reads them once per device (ibv_query_device and the port's link
 * layer).
 *
 * @param transportType InfiniBand, RoCE or iWARP
 * @param maxSendSge max SGEs in a SEND or RDMA WRITE work request ({@code max_sge})
 * @param maxReceiveSge max SGEs in a receive work request
 * @param maxReadSge max SGEs in an RDMA READ work request ({@code max_sge_rd}; iWARP: often 1)
 * @param maxInlineData max bytes a SEND may carry inline ({@link SendWorkRequest#INLINE})
 * @param maxQueueDepth max work requests per send or receive queue ({@code max_qp_wr})
 * @param maxCompletionQueueEntries max entries of a completion queue ({@code max_cqe})
 * @param maxOutstandingReads max RDMA READs a queue pair may have in flight as initiator (ORD,
 *        {@code max_qp_init_rd_atom})
 * @param maxIncomingReads max RDMA READs a queue pair serves at once as responder (IRD,
 *        {@code max_qp_rd_atom})
 * @param fastRegistration whether {@link SendOpcode#REG_MR} work requests (fast registration
 *        with key bump) are supported; false for user-space verbs
 * @param remoteInvalidation whether {@link SendOpcode#SEND_WITH_INV} can be received and
 *        honoured
 * @param maxFastRegistrationLength max bytes one fast-registration region maps; 0 without fast
 *        registration
 */
public record DeviceCapabilities(
        TransportType transportType,
        int maxSendSge,
        int maxReceiveSge,
        int maxReadSge,
        int maxInlineData,
        int maxQueueDepth,
        int maxCompletionQueueEntries,
        int maxOutstandingReads,
        int maxIncomingReads,
        boolean fastRegistration,
        boolean remoteInvalidation,
        int maxFastRegistrationLength) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException when a limit is not positive (inline data and the fast
     *         registration length may be zero) or fast registration has no length
     */
    public DeviceCapabilities {
        Objects.requireNonNull(transportType, "transportType");
        positive("maxSendSge", maxSendSge);
        positive("maxReceiveSge", maxReceiveSge);
        positive("maxReadSge", maxReadSge);
        positive("maxQueueDepth", maxQueueDepth);
        positive("maxCompletionQueueEntries", maxCompletionQueueEntries);
        positive("maxOutstandingReads", maxOutstandingReads);
        positive("maxIncomingReads", maxIncomingReads);
        if (maxInlineData < 0) {
            throw new IllegalArgumentException("maxInlineData must not be negative: " + maxInlineData);
        }
        if (fastRegistration ? maxFastRegistrationLength <= 0 : maxFastRegistrationLength != 0) {
            throw new IllegalArgumentException("maxFastRegistrationLength must be positive with fast registration and 0 without: "
                    + maxFastRegistrationLength);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }
}
