package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;

/**
 * Backchannel - the backward direction of one RPC-over-RDMA connection (RFC 8167): RPC calls
 * from this server to the client on the same connection, e.g. NFSv4.1 callbacks (CB_NULL,
 * CB_RECALL, CB_LAYOUTRECALL).
 *
 * <p>What the protocol asks, and this side does:
 * <ul>
 * <li>A backward call travels inline only, as an RDMA_MSG with empty chunk lists; it must fit the
 *     client's receive size (RFC 8797 private data, else 1024 bytes) with its 28-byte transport
 *     header, or it is refused ({@link SendOutcome#TOO_LARGE}).</li>
 * <li>Backward credits are accounted apart from forward ones: the server may have as many
 *     backward calls outstanding as the client's last backward reply granted (one until the
 *     first reply; a grant of 0 counts as 1, as in Linux), and never more than
 *     {@link TransportConfig#backchannelCredits()}. Each backward call asks for that many in
 *     its credit field. Calls beyond the grant wait, in order, until a reply or
 *     {@link #forget} frees a credit; at most {@link #MAX_WAITING} wait, beyond that a call is
 *     refused ({@link SendOutcome#FULL}).</li>
 * <li>The client's replies arrive in the receives of the forward direction (the transport posts
 *     {@code backchannelCredits} receives more than its forward credits for them) and are told
 *     from forward calls by the RPC message type (REPLY), as Linux does. A reply matching an
 *     outstanding backward call goes to {@link RpcCallHandler#onBackchannelReply}; any other is
 *     dropped and counted ({@link Counter#BACKWARD_REPLIES_UNMATCHED}). A reply with read
 *     chunks (RDMA_NOMSG, or a read list), which RFC 8167 does not allow, is never taken for a
 *     call either: it is dropped as Linux drops it, but the credit of its call comes back at once
 *     and {@link RpcCallHandler#onBackchannelReplyRefused} is told
 *     ({@link Counter#BACKWARD_REPLIES_REFUSED}).</li>
 * <li>When the connection closes, every call outstanding or waiting is counted as
 *     {@link Counter#BACKWARD_CALLS_FAILED} and {@link RpcCallHandler#onBackchannelClosed} is
 *     told, once; a reconnecting client gets a new connection with a fresh back channel.</li>
 * </ul>
 *
 * <p>Threading: every method is safe from any thread and never blocks.
 */
public interface Backchannel {
    /** The most backward calls that may wait for a credit per connection. */
    int MAX_WAITING = 64;

    /** What became of a backward call handed to {@link #send}. */
    enum SendOutcome {
        /** Queued: it is sent as soon as a backward credit and a send buffer are free. */
        QUEUED,
        /** The transport's {@code backchannelCredits} is 0: no back channel. */
        DISABLED,
        /** The connection is closing or closed. */
        CLOSED,
        /** The call and its transport header exceed the client's receive size (backward calls are inline only). */
        TOO_LARGE,
        /** The message is not an RPC call (too short, or its message type is not CALL). */
        NOT_A_CALL,
        /** {@link #MAX_WAITING} calls already wait for a backward credit. */
        FULL
    }

    /**
     * send() - queue a backward call.
     *
     * @param rpcCall the encoded RPC call message (xid first), from its position to its limit;
     *        copied before this method returns
     * @return {@link SendOutcome#QUEUED}, or why the call will never be sent (counted as
     *         {@link Counter#BACKWARD_CALLS_REFUSED})
     */
    SendOutcome send(ByteBuffer rpcCall);

    /**
     * forget() - the caller stopped waiting for the reply to {@code xid} (it timed out): a call
     * still waiting is not sent, an outstanding one gives its credit back and a late reply is
     * dropped as unmatched. Counted as {@link Counter#BACKWARD_TIMEOUTS} when the call was known.
     *
     * @param xid the backward call's xid
     */
    void forget(int xid);

    /** @return the backward credits in force: the client's last grant, within 1..backchannelCredits */
    int credits();

    /** @return backward calls sent whose reply has not arrived (nor been forgotten) */
    int outstanding();

    /** @return backward calls waiting for a credit or a send buffer */
    int waiting();

    /** @return the longest RPC call message that may be sent (0 when the back channel is disabled) */
    int maxCallSize();
}
