package org.rpcrdma4j.transport.internal.common;

/**
 * PostOutcome - what an attempt to post work requests for one piece of work (a reply, a READ
 * chain, a backward-direction call) came to, and what a pump that posts queued work in order
 * stopped at.
 *
 * <p>The hot path returns it instead of throwing or encoding it in an int: it is an enum
 * constant, so nothing is allocated.
 */
public enum PostOutcome {
    /** Posted (or answered another way, such as ERR_CHUNK); for a pump: nothing is left waiting. */
    POSTED,
    /** A resource it needs (send buffer, send-queue slot, staging, credit) is taken: retry later. */
    MUST_WAIT,
    /**
     * The work failed. For a reply or a backward call the post itself failed and the connection
     * MUST close; for a READ chain its call fails (the connection learns of a verbs error apart).
     */
    FAILED
}
