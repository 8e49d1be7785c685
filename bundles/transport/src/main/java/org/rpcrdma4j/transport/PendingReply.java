package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;

/**
 * PendingReply - the way back for the reply to one received call: its connection, its xid, and
 * the chunks the client offered for the reply (the write list and the reply chunk), captured from
 * the call's transport header when it was taken with {@link ReceivedCall#detachReply()}. The call
 * itself may be released at once; the reply is sent later, from any thread.
 *
 * <p>How the reply travels is the transport's choice (RFC 8166 §3.4, §3.5): a DDP-eligible item
 * named by {@code ddpItemOffset} goes to the client's first write chunk with RDMA WRITE when it
 * fits there; the rest goes inline in an RDMA_MSG when it fits the client's receive size, else
 * through the reply chunk in an RDMA_NOMSG; a reply that fits nowhere is answered with RDMA_ERROR
 * / ERR_CHUNK. Every reply grants the connection's credits. The transport header is always built
 * from the call this reply answers, never from an earlier one (so a reply cache can hand the same
 * RPC reply to a retransmission).
 *
 * <p>Ownership: whoever detached it MUST finish it exactly once, with {@link #send} or
 * {@link #abandon()}; a second attempt throws {@link IllegalStateException} as long as the
 * transport has not yet reused it: a pending reply is a pooled per-call context of its
 * connection, taken up by a later call once this one's reply is posted or abandoned, so it MUST
 * NOT be used after it is finished. Threading: safe from
 * any thread; {@link #send} never blocks (a full send queue or staging area makes the reply wait
 * on the connection, in order).
 */
public interface PendingReply {
    /** @return the xid of the call this reply answers */
    int xid();

    /** @return the connection the reply goes back on */
    RdmaConnection connection();

    /**
     * @return the bytes the client's first write chunk can take, 0 when it offered no write list
     *         (a DDP-eligible item is worth locating only when this is positive)
     */
    long writeChunkCapacity();

    /** @return the bytes the client's reply chunk can take, 0 when it offered none */
    long replyChunkCapacity();

    /**
     * replyBuffer() - memory owned by this pending reply to encode the RPC reply into: a heap
     * buffer larger than the connection's inline send size (room for a reply carrying a 4 KiB
     * DDP item, which then needs no {@link #largerReplyBuffer}), cleared, made once and
     * reused by later replies of the connection. A reply encoded here and passed to {@link #send}
     * costs no allocation; the transport reads it before the context is reused. Optional: any
     * other buffer may be sent. Valid until {@link #send} or {@link #abandon()}.
     *
     * @return the buffer, position 0 and limit its capacity
     * @throws IllegalStateException when the reply was already sent or abandoned
     */
    ByteBuffer replyBuffer();

    /**
     * largerReplyBuffer() - for a reply that outgrew {@link #replyBuffer()} (an NFS READ of 1 MiB):
     * direct memory owned by this pending reply, at least {@code capacity} bytes, borrowed from a
     * pool the transport's connections share and given back once the reply has been copied into
     * registered memory or dropped. For a large reply the transport may hand out registered
     * memory itself, which the reply's RDMA WRITEs then read where the reply was encoded (held
     * until the client has the reply). A reply sent in the buffer itself (not a view of it) is
     * what spares the copy. The caller copies what it encoded so far; the buffers this pending
     * reply handed out before stay valid too. Valid until {@link #send} or {@link #abandon()}.
     *
     * @param capacity the bytes needed
     * @return the buffer, position 0 and limit its capacity; or null when the transport keeps none
     *         that large (or this reply already borrowed twice): the caller allocates its own
     * @throws IllegalStateException when the reply was already sent or abandoned
     */
    ByteBuffer largerReplyBuffer(int capacity);

    /**
     * send() - send the RPC reply message.
     *
     * <p>Ownership: the transport takes {@code rpcReply} and reads it, from its position to its
     * limit, on its completion thread; the caller MUST NOT change it afterwards. When the
     * connection has closed in the meantime the reply is dropped and counted
     * ({@link Counter#REPLIES_DROPPED}); the client retransmits on its next connection.
     *
     * @param rpcReply the encoded RPC reply message (xid first)
     * @param ddpItemOffset the offset, relative to the position, of the XDR length word of the
     *        reply's DDP-eligible item (its bytes and round-up follow), or -1 when there is none
     * @throws IllegalArgumentException when the offset does not name an item inside the message
     *         (nothing is sent; the reply stays pending)
     * @throws IllegalStateException when the reply was already sent or abandoned
     */
    void send(ByteBuffer rpcReply, int ddpItemOffset);

    /**
     * abandon() - no reply will be sent for this call (counted as {@link Counter#REPLIES_ABANDONED}).
     *
     * @throws IllegalStateException when the reply was already sent or abandoned
     */
    void abandon();
}
