package org.rpcrdma4j.transport.internal.sendto;

import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.internal.common.Counters;

/**
 * ReplyConnection - the connection a call's reply goes out on, as its {@link ReplyJob} sees it:
 * the public connection the reply names, plus where a finished reply is handed in and the memory
 * a reply is encoded into. The connection layer above implements it and hands it to each
 * {@link ReplyJob} it makes.
 *
 * <p>Threading: every method from any thread (the RPC layer's workers build and send replies).
 */
public interface ReplyConnection extends RdmaConnection {

    /**
     * submitReply() - a reply the RPC layer sent: post it, queue it for the completion loop, or
     * drop it (counted) when the connection is closing. Any thread.
     */
    void submitReply(ReplyJob job);

    /** @return the connection's counters (for counts from any thread) */
    Counters counters();

    /**
     * @return the connection's inline reply size (its send buffers'); a pending reply's own
     *         {@link ReplyJob#replyBuffer()} is {@link ReplyJob#PAGE_ITEM_ROOM} larger
     */
    int replyBufferSize();

    /** @return the transport's pool of buffers for replies larger than a pending reply's own */
    LargeReplyBuffers largeReplyBuffers();

    /**
     * @return the connection's share of its loop's reply staging, the registered memory large
     *         replies are encoded straight into ({@link ReplyJob#largerReplyBuffer}); null while
     *         the connection has none (it failed to open)
     */
    ReplyStaging replyStaging();
}
