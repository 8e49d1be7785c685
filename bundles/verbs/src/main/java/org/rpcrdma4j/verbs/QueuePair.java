package org.rpcrdma4j.verbs;

/**
 * A reliable-connected queue pair (ibv_qp), created on a {@link Connection} and destroyed with it.
 *
 * <p>Work requests execute in order per queue; their results arrive as {@link WorkCompletion}s on
 * the completion queues given at creation. A consumer MUST count a send or receive queue slot as
 * in use until the completion that retires it has been <em>polled</em>: for unsignaled sends that
 * is the completion of a later signaled send, so a sender that never signals fills its queue.
 *
 * <p>Depth and capacity: a consumer that keeps at most the depth it asked for
 * ({@link QueuePairAttributes#sendQueueDepth()}, {@link QueuePairAttributes#receiveQueueDepth()})
 * outstanding, counted as above, never sees a post fail for lack of room. Devices MAY give a queue
 * more room than asked: they round sizes up (rxe to 2^n - 1, most hardware to a power of two), and
 * a device may free a slot as soon as it has executed the request, before the completion is
 * polled. The real room is {@link #sendQueueCapacity()} / {@link #receiveQueueCapacity()}; a post
 * fails with ENOMEM only when more requests than that would be outstanding on the device. So the
 * consumer MUST do its own accounting against the depth it asked for (its completion queues are
 * sized for that depth), and MUST NOT rely on ENOMEM to stop it.
 *
 * <p>Threading: posting is safe from any thread, but callers MUST serialise posts to one queue
 * (post from one thread, or under the caller's lock) so that chains are not interleaved.
 * Ownership: owned by its {@link Connection}; consumers MUST NOT use it after the connection is
 * closed.
 */
public interface QueuePair {
    /** @return the queue pair number, reported in {@link WorkCompletion#queuePairNumber()} */
    int number();

    /** @return the protection domain whose keys the requests may use */
    ProtectionDomain protectionDomain();

    /** @return the attributes it was created with */
    QueuePairAttributes attributes();

    /** @return the current state, as the device reports it (ibv_query_qp); not for the hot path */
    QueuePairState state();

    /**
     * @return how many send requests the device lets be outstanding on this queue pair: at least
     *         {@code attributes().sendQueueDepth()}, more where the device rounded the size up
     */
    int sendQueueCapacity();

    /**
     * @return how many receives the device lets be posted on this queue pair: at least
     *         {@code attributes().receiveQueueDepth()}, more where the device rounded the size up
     */
    int receiveQueueCapacity();

    /**
     * Posts a chain of send-queue work requests (ibv_post_send). The requests are copied; the
     * caller MAY reuse the objects on return. In the {@link QueuePairState#ERROR} state the
     * requests are accepted and complete as flushed; a user MUST NOT wait for those flushes
     * without a bound: Soft-iWARP of Linux 6.1 accepts requests posted to a failed user queue
     * pair and never completes them (they end when the queue pair is destroyed).
     *
     * @param first the first request of the chain (linked by {@code next})
     * @throws VerbsException ENOMEM when the send queue would exceed its capacity; EINVAL for an
     *         opcode the device lacks, too many SGEs, inline data too long, or a queue pair not yet
     *         connected. {@link VerbsException#failedIndex()} names the first request not posted;
     *         the ones before it were posted.
     */
    void postSend(SendWorkRequest first) throws VerbsException;

    /**
     * Posts a chain of receives (ibv_post_recv). The requests are copied; the caller MAY reuse the
     * objects on return. In the {@link QueuePairState#ERROR} state they complete as flushed.
     *
     * @param first the first request of the chain (linked by {@code next})
     * @throws VerbsException ENOMEM when the receive queue would exceed its capacity; EINVAL for too
     *         many SGEs. {@link VerbsException#failedIndex()} names the first request not posted.
     */
    void postReceive(ReceiveWorkRequest first) throws VerbsException;
}
