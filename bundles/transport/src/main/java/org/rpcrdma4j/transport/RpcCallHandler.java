package org.rpcrdma4j.transport;

import java.nio.ByteBuffer;

/**
 * RpcCallHandler - the upcall that receives every complete call (the hand-off to the RPC layer,
 * e.g. the oncrpc4j bridge).
 */
@FunctionalInterface
public interface RpcCallHandler {
    /**
     * onCall() - take a received call.
     *
     * <p>Runs on the transport's completion thread: the handler MUST NOT block; it decodes or
     * queues the call for a worker and returns. <b>Ownership of {@code call} passes to the handler
     * when this method is entered, whether it returns or throws: the handler MUST call
     * {@link ReceivedCall#release()} exactly once, from any thread, when it no longer reads the
     * body.</b> Until then the call holds a receive buffer and its read sinks.
     *
     * @param call the call; valid until released
     */
    void onCall(ReceivedCall call);

    /**
     * onBackchannelReply() - the client answered a backward call sent through the connection's
     * {@link Backchannel} (RFC 8167). Runs on the completion thread: MUST NOT block.
     *
     * <p>The default drops it: a handler that never sends backward calls never gets one.
     *
     * @param connection the connection the reply arrived on
     * @param xid the backward call's xid
     * @param rpcReply the RPC reply message (xid first), a copy the handler owns
     */
    default void onBackchannelReply(RdmaConnection connection, int xid, ByteBuffer rpcReply) {
    }

    /**
     * onBackchannelReplyRefused() - the client answered backward call {@code xid} in a form the
     * transport does not take (with chunks: RFC 8167 backward replies are inline only), so the
     * reply was dropped and the call's backward credit given back; the caller waiting for it
     * should fail now rather than at its timeout. Runs on the completion thread: MUST NOT block.
     *
     * <p>The default ignores it: a handler that never sends backward calls never gets one.
     *
     * @param connection the connection the reply arrived on
     * @param xid the backward call's xid
     * @param reason why the reply was refused, for the caller's exception
     */
    default void onBackchannelReplyRefused(RdmaConnection connection, int xid, String reason) {
    }

    /**
     * onBackchannelClosed() - the connection is closing: no backward call on it will be answered
     * (those outstanding or waiting were counted as {@link Counter#BACKWARD_CALLS_FAILED}).
     * Called once per connection that was established, on the completion thread: MUST NOT block.
     *
     * @param connection the connection
     */
    default void onBackchannelClosed(RdmaConnection connection) {
    }
}
