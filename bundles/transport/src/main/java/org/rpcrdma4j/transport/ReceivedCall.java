package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executor;

import org.rpcrdma4j.codec.SegmentList;
import org.rpcrdma4j.codec.WriteList;

/**
 * ReceivedCall - one RPC call received over RPC-over-RDMA, its body assembled in XDR order
 * without a copy.
 *
 * <p>The body is a sequence of read-only views: slices of the receive buffer for inline pieces,
 * slices of READ sink memory for read chunk data, and slices of a shared zero buffer for the XDR
 * round-up of chunk data (RFC 8166 §3.4.5.2). Concatenated they are exactly the RPC call message.
 *
 * <p><b>Ownership: the {@link RpcCallHandler} owns the call from {@code onCall} on and MUST call
 * {@link #release()} exactly once, from any thread. After {@code release()} the call, its views,
 * its write list and reply chunk MUST NOT be used: the memory is reused for other calls.</b> A
 * second {@code release()} is detected and fails with {@link IllegalStateException} (and is
 * counted), as long as the transport has not yet reused the call for another message.
 *
 * <p>Threading: reading the accessors and views is safe from any one thread at a time after the
 * hand-off; the views' positions and limits belong to the reader.
 */
public interface ReceivedCall {
    /** @return the transaction id of the transport header (equal to the RPC xid) */
    int xid();

    /** @return the credits the client requested in this call's header (RFC 8166 §4.2.3) */
    int creditsRequested();

    /** @return {@code RpcRdma.RDMA_MSG} or {@code RpcRdma.RDMA_NOMSG} */
    int procedure();

    /** @return the connection the call arrived on (real peer and local addresses) */
    RdmaConnection connection();

    /**
     * @return the client's write list, where DDP-eligible reply data goes (RFC 8166 §4.3.2); valid
     *         until {@link #release()}
     */
    WriteList writeList();

    /** @return the client's reply chunk segments, empty when none; valid until {@link #release()} */
    SegmentList replyChunk();

    /** @return true when the client offered a reply chunk */
    boolean hasReplyChunk();

    /** @return whether any of the body came through RDMA READ */
    boolean hasReadChunks();

    /**
     * @return the body as read-only views in XDR order, each holding its piece between its
     *         position and limit; an unmodifiable list owned by the call, valid until
     *         {@link #release()}. An inline call is one view of the receive buffer and costs no
     *         allocation; a call with read chunks allocates one small view object per piece.
     */
    List<ByteBuffer> body();

    /** @return the number of bytes of the whole body (the sum of the views' remaining bytes) */
    int bodyLength();

    /**
     * copyBody() - copy the whole body into one new heap buffer (a convenience; allocates).
     *
     * @return a buffer with position 0 and limit {@link #bodyLength()}
     */
    ByteBuffer copyBody();

    /**
     * copyBodyTo() - copy the whole body into {@code destination} at its position, advancing it.
     *
     * @param destination a buffer with at least {@link #bodyLength()} bytes remaining
     * @throws java.nio.BufferOverflowException when it does not fit (nothing copied)
     */
    void copyBodyTo(ByteBuffer destination);

    /**
     * detachReply() - take the way back for this call's reply, so the call can be released before
     * the reply exists. Takes a pooled per-call context of the connection and copies the call's
     * parsed chunk lists into it (no allocation, no second decode); MAY be called once, before
     * {@link #release()}.
     *
     * @return the pending reply, to be finished exactly once
     * @throws IllegalStateException when called twice or after {@link #release()}
     */
    PendingReply detachReply();

    /**
     * runOnReceivingThread() - offer the call's work to the completion-loop thread that received
     * it: it runs {@code task} right after its current pass (after the calls it kept before in
     * the same pass), once the loop's standby thread has taken over the completions or watches
     * them (leader/followers), so the call costs no hand-off to another thread. {@code task} may
     * block (disk), as on a worker. Only from {@link RpcCallHandler#onCall}, on the completion
     * thread.
     *
     * @param task the call's work; it runs exactly once when taken
     * @param elsewhere where a taken task goes if it cannot run on that thread in time (it waits
     *        behind a call of the same pass that blocks): the workers the caller would have used.
     *        It must accept the task or handle the refusal itself.
     * @return true when taken; false when the thread cannot take it (its loop has a backlog to
     *         poll through, its standby is busy, it already keeps as many calls of this pass as
     *         it may, or {@code loopRunsCalls} is off): run the work elsewhere
     */
    boolean runOnReceivingThread(Runnable task, Executor elsewhere);

    /**
     * release() - return the receive buffer and every read sink to the transport.
     *
     * @throws IllegalStateException when the call was already released
     */
    void release();
}
