package org.rpcrdma4j.verbs;

/**
 * A reliable-connected queue pair (ibv_qp), created on a {@link Connection} and destroyed with it.
 *
 * <p>Work requests execute in order per queue; their results arrive as {@link WorkCompletion}s on
 * the completion queues given at creation. A send or receive queue slot stays in use until the
 * completion that retires it has been <em>polled</em>: for unsignaled sends that is the completion
 * of a later signaled send, so a sender that never signals fills its queue.
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

    /** @return the current state */
    QueuePairState state();

    /**
     * Posts a chain of send-queue work requests (ibv_post_send). The requests are copied; the
     * caller MAY reuse the objects on return. In the {@link QueuePairState#ERROR} state the
     * requests are accepted and complete as flushed.
     *
     * @param first the first request of the chain (linked by {@code next})
     * @throws VerbsException ENOMEM when the send queue would exceed its depth; EINVAL for an
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
     * @throws VerbsException ENOMEM when the receive queue would exceed its depth; EINVAL for too
     *         many SGEs. {@link VerbsException#failedIndex()} names the first request not posted.
     */
    void postReceive(ReceiveWorkRequest first) throws VerbsException;
}
