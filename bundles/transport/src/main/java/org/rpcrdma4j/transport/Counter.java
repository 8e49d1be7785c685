package org.rpcrdma4j.transport;

/**
 * Counter - the named counters of a transport and of each connection.
 *
 * <p>Each connection counts its own; the transport's counters are the sums over every
 * connection it ever had, plus the transport-wide ones (connections, accept failures) and its
 * completion loops' ({@code LOOP_*}, {@code CALLS_RUN_*}, {@code NEXT_CALL_*}). The counts made
 * for every call have one writer each (a connection's send lock holder, a loop's leader) and reach
 * the transport's values when those are read: a read sums the live connections and loops.
 */
public enum Counter {
    /** Receive completions with data. */
    RECEIVES,
    /** Calls handed to the handler. */
    CALLS_DELIVERED,
    /** Calls whose body was entirely inline. */
    CALLS_INLINE,
    /** Calls deferred until their read chunks were pulled. */
    CALLS_DEFERRED,
    /** Calls dropped after they were accepted for processing (READ failure, connection close). */
    CALLS_DROPPED,
    /** RDMA READ work requests posted. */
    READS,
    /** Bytes pulled by RDMA READ. */
    READ_BYTES,
    /** Times the ORD limit held READs back (once per episode). */
    READ_ORD_STALLS,
    /** Times no read sinks were free for the next call's READs (once per episode). */
    READ_SINK_STARVATION,
    /**
     * Times a connection's next call with read chunks waited because the connection already held
     * its share of the loop's READ sinks (what its credits justify, at most a fair part of the pool
     * when other connections use it): it waits for its own calls' sinks, not for the other
     * connections' (once per episode).
     */
    READ_SINK_SHARE_WAITS,
    /** READs that completed in error (not counting flushes). */
    READ_ERRORS,
    /**
     * Times the receive queue could not be refilled because every free receive context was taken
     * (by calls held by handlers or waiting for READs); counted once per episode.
     */
    RECEIVE_STARVATION,
    /** Receive completions in error (not counting flushes). */
    RECEIVE_ERRORS,
    /**
     * Messages that arrived (their receive completed, so the client's SEND succeeded) but were
     * polled only after their connection began closing (the client disconnected, or the
     * connection failed): discarded unread. A call among them is answered on no connection; the
     * client retransmits it on its next one.
     */
    RECEIVES_DISCARDED_AT_CLOSE,
    /** Messages received with a version other than 1, answered with ERR_VERS. */
    ERR_VERS_SENT,
    /** Malformed messages answered with ERR_CHUNK. */
    ERR_CHUNK_SENT,
    /** RDMA_MSGP messages (answered with ERR_CHUNK, also counted there). */
    MSGP_RECEIVED,
    /** Messages too short to carry an xid, dropped unanswered. */
    TRUNCATED_DROPPED,
    /** RDMA_DONE messages from the client, dropped. */
    DONE_DROPPED,
    /** RDMA_ERROR messages from the client (or malformed ones), dropped unanswered. */
    CLIENT_ERRORS_DROPPED,
    /** Calls with read chunks refused because no registration strategy was active. */
    NO_STRATEGY,
    /**
     * Calls with read chunks refused with ERR_CHUNK because they need more sinks than the pool
     * holds, or a body larger than 2 GiB.
     */
    READ_PLAN_REFUSED,
    /** SEND work requests posted. */
    SENDS,
    /**
     * Posts to a send queue through the verbs adapter: a reply's RDMA WRITEs and its SEND go in
     * one chain, one post, as do a call's RDMA READs. Per RPC, with {@link #COMPLETIONS}, what the
     * transport asks of the device beyond the data. At the device a post is one doorbell: the
     * DiSNI provider posts a chain with one ibv_post_send (in pieces of 16 work requests when
     * longer), the loopback provider starts its work at once.
     */
    SEND_POSTS,
    /** Posts to a receive queue (ibv_post_recv calls): free receives go back in batches ({@code repostBatch}). */
    RECEIVE_POSTS,
    /** Work completions polled from the completion queues, of every kind (receive, SEND, RDMA READ and WRITE). */
    COMPLETIONS,
    /**
     * Completions of SENDs (replies and backward calls; flushed ones too). A reply's RDMA WRITEs
     * are posted unsignaled before its SEND, whose completion retires them: one per reply,
     * whatever its kind. Per reply, with {@link #WRITE_COMPLETIONS}, the completions a reply
     * costs the send side (the lab reports it beside {@link #SEND_POSTS}).
     */
    SEND_COMPLETIONS,
    /** Completions of RDMA WRITEs: posted unsignaled, a WRITE completes on its own only in error or flushed. */
    WRITE_COMPLETIONS,
    /** Posts of RDMA READ chains (a call's chunks); the rest of {@link #SEND_POSTS} carried SENDs (replies, backward calls). */
    READ_POSTS,
    /**
     * Times a send found every send buffer of its connection in use: a reply then waits, in
     * order, until a SEND's completion frees one (counted once per episode of waiting, not per
     * reply that waited); an RDMA_ERROR reply (ERR_VERS, ERR_CHUNK) is dropped instead and
     * counted each time (a retransmission of the call is answered again).
     */
    SEND_BUFFER_STARVATION,
    /** Times the send queue was full and a SEND (one per SEND) or the next READ (once per episode) had to wait. */
    SEND_QUEUE_FULL,
    /** Replies sent inline in an RDMA_MSG (with or without a write chunk). */
    REPLIES_INLINE,
    /** Replies whose RPC message went through the client's reply chunk (RDMA_NOMSG). */
    REPLIES_REPLY_CHUNK,
    /** Replies whose DDP-eligible item went to the client's write chunk. */
    REPLIES_WRITE_CHUNK,
    /** Replies that fit neither inline nor the reply chunk, answered with ERR_CHUNK instead. */
    REPLIES_TOO_LARGE,
    /** Replies dropped because their connection had closed (the client retransmits). */
    REPLIES_DROPPED,
    /** Replies the RPC layer abandoned (it sends none for the call). */
    REPLIES_ABANDONED,
    /** Replies sent with Send With Invalidate (RFC 8797 remote invalidation). */
    SEND_WITH_INVALIDATE,
    /** RDMA WRITE work requests posted (write chunk and reply chunk data). */
    WRITES,
    /** Bytes pushed by RDMA WRITE. */
    WRITE_BYTES,
    /** Times a reply waited for reply staging memory (once per episode). */
    REPLY_STAGING_STARVATION,
    /**
     * Times a connection's next reply waited because the connection already held its share of the
     * loop's reply staging memory (what its credits justify, at most a fair part of the slab when
     * other connections use it): it waits for its own replies' SENDs to complete (once per episode).
     */
    REPLY_STAGING_SHARE_WAITS,
    /**
     * Replies whose RDMA WRITEs read the registered staging memory the reply was encoded into (a
     * large reply, such as a 1 MiB NFS READ: its data is pushed from where the program put it,
     * without the copy into staging at the post). The other large replies (no staging to be had at
     * once when encoding began) are copied into staging as before.
     */
    REPLIES_ENCODED_IN_STAGING,
    /**
     * Replies whose RDMA WRITEs read a page or less (a 4 KiB READ's data) from the room after their
     * SEND's own registered buffer, taking no reply staging.
     */
    REPLIES_WRITTEN_FROM_SEND_BUFFER,
    /** Send-queue completions in error (not counting flushes). */
    SEND_ERRORS,
    /** Posts (or polls) refused by the provider. */
    POST_FAILURES,
    /** Deregistrations, closes or disconnects the provider refused while releasing resources. */
    RELEASE_FAILURES,
    /** Second release of a call, refused. */
    DOUBLE_RELEASES,
    /** Exceptions thrown by the call handler (ownership stays with the handler). */
    HANDLER_ERRORS,
    /** Connections accepted. */
    CONNECTIONS_ACCEPTED,
    /** Connect requests that could not be set up (and were rejected). */
    ACCEPT_FAILURES,
    /** Connections fully closed. */
    CONNECTIONS_CLOSED,
    /** Connections closed because of an error (a failed READ, receive or post). */
    CONNECTIONS_FAILED,
    /**
     * Connections closed because their queue pair flushed work before the server began closing
     * them: the peer went away, or the queue pair went to error (e.g. a peer's RDMA with a bad key).
     */
    QUEUE_PAIR_FLUSHES,
    /** Connections closed because work they posted did not complete within the stall deadline (a peer that stopped). */
    CONNECTIONS_STALLED,
    /**
     * Closing connections whose outstanding work never flushed within the stall deadline (a device
     * that loses flushes, as Soft-iWARP of Linux 6.1 does): the queue pair was destroyed and that
     * work reclaimed without its completions.
     */
    CLOSE_FLUSHES_LOST,
    /**
     * Large reply buffers allocated: a reply outgrew its pending reply's memory (a 1 MiB NFS READ)
     * and no idle buffer of its size class was there to reuse. Steady traffic allocates none; a
     * count that keeps growing means more large replies are in flight than replyStagingBytes keeps.
     */
    LARGE_REPLY_BUFFERS_ALLOCATED,
    /**
     * Times a completion loop found no work and slept on its completion channel (each ended by a
     * completion, a hand-in or the housekeeping timeout): a wake-up that a call arriving then pays.
     */
    LOOP_SLEEPS,
    /**
     * Times a completion loop found work while it kept polling for {@code completionSpinMicros}
     * after an idle pass: a wake-up saved. With spinning on, hits against {@link #LOOP_SLEEPS} tell
     * whether the spin is long enough for the gaps between a client's calls.
     */
    LOOP_SPIN_HITS,
    /**
     * Calls run by the completion-loop thread that received them, its standby taking over the
     * completions ({@code loopRunsCalls}): a hand-off to a worker saved. The rest of
     * {@link #CALLS_DELIVERED} went to workers because the loop had a backlog (its previous
     * pass found work), the standby was busy (a call of a previous pass still running on it) or
     * the pass had already kept one and the standby did not watch (or it kept
     * {@code LoopCrew.MAX_CALLS_RUN_ON_LOOP_PER_PASS}).
     */
    CALLS_RUN_ON_LOOP,
    /**
     * Times a completion loop found a connection's send lock held by a worker posting a reply
     * (on rxe a post does the soft device's work in the posting thread) and deferred its pass
     * over that connection until the worker let go, serving the loop's other connections
     * meanwhile instead of waiting.
     */
    LOOP_PASSES_DEFERRED,
    /**
     * Times a completion loop, polling after its thread kept every call of a wake-up
     * ({@code nextCallSpinMicros}), found the client's next call within the spin: a wake-up saved.
     */
    NEXT_CALL_SPIN_HITS,
    /**
     * Next-call spins that found no call and ended in a sleep: CPU spent for nothing. Misses make
     * the loop stop spinning (it then probes one such wake-up in 16), so they stay a small share.
     */
    NEXT_CALL_SPIN_MISSES,
    /**
     * Calls a loop thread ran after stepping aside from its loop without waking the standby
     * ({@code callTimeSliceMicros}): the standby was watching, so a hand-over (a wake-up) saved.
     * The rest of {@link #CALLS_RUN_ON_LOOP} woke the standby first.
     */
    CALLS_RUN_WITHOUT_HAND_OVER,
    /**
     * Times a watching standby took its loop over because the call its leader stepped aside for
     * ran longer than {@code callTimeSliceMicros} (a call that blocks, or a busy CPU).
     */
    LOOP_TAKEOVERS,
    /**
     * Calls a loop thread kept (counted in {@link #CALLS_RUN_ON_LOOP}) that went to the workers
     * after all: they waited behind a call of the same pass that outran {@code callTimeSliceMicros}
     * (the standby took the loop over and sent them on), or the standby stopped watching before
     * the leader could step aside (then only the first call stays on the thread).
     */
    KEPT_CALLS_SENT_TO_WORKERS,
    /** Connect requests refused because the transport already serves {@code maxConnections}. */
    CONNECTIONS_REFUSED_LIMIT,
    /** Backward-direction calls (RFC 8167, server to client) sent. */
    BACKWARD_CALLS,
    /** Replies to backward calls received and matched to their call. */
    BACKWARD_REPLIES,
    /** Backward calls whose caller stopped waiting (timed out) before the reply came. */
    BACKWARD_TIMEOUTS,
    /** Backward calls refused before sending: back channel disabled, connection closed, too large, not a call, queue full. */
    BACKWARD_CALLS_REFUSED,
    /** Backward calls outstanding or waiting when their connection closed (failed at once). */
    BACKWARD_CALLS_FAILED,
    /** Replies from the client that match no outstanding backward call (late, duplicate, or never asked for): dropped. */
    BACKWARD_REPLIES_UNMATCHED,
    /**
     * Replies to outstanding backward calls whose RPC header the header check refused (a verifier
     * beyond 400 bytes or beyond the message, a truncated header): their call fails at once with
     * the fault, oncrpc4j decodes nothing of them. Also counted in {@link #BACKWARD_REPLIES}.
     */
    BACKWARD_REPLIES_MALFORMED,
    /**
     * Replies to outstanding backward calls that came with read chunks (RDMA_NOMSG, or an RDMA_MSG
     * with a read list), which RFC 8167 does not allow (backward replies are inline only): dropped,
     * as Linux drops them, their call failed at once and its backward credit given back.
     */
    BACKWARD_REPLIES_REFUSED
}
