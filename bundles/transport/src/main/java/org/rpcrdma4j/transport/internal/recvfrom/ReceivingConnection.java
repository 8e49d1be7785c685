package org.rpcrdma4j.transport.internal.recvfrom;

import java.util.concurrent.Executor;

import org.rpcrdma4j.codec.ParsedHeader;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.sendto.ReplyJob;

/**
 * ReceivingConnection - the connection a call was received on, as the receive path sees it: the
 * public connection a {@link ReceiveContext} names, plus what a received call needs from it
 * (a pending reply, the receiving thread, the way back for a released call) and the close that
 * a failed error reply or a failed READ forces. The connection layer above implements it and
 * hands it to the connection's {@link ReceivePool} and {@link MessageDispatcher}.
 *
 * <p>Threading: each method says; the {@link RdmaConnection} getters from any thread.
 */
public interface ReceivingConnection extends RdmaConnection {

    /**
     * newReply() - the pending reply of a call the handler detached it from: a pooled per-call
     * context holding the call's chunk lists as parsed at receive time, and when its receive
     * completion was handled ({@code receivedAt}, System.nanoTime(), for the reply latency). Any
     * thread.
     */
    ReplyJob newReply(ParsedHeader header, long receivedAt);

    /**
     * runOnLoop() - offer a delivered call's work to the completion loop that received
     * it ({@link org.rpcrdma4j.transport.ReceivedCall#runOnReceivingThread}). Any thread; only the
     * loop's own thread is ever taken up on it.
     *
     * @return true when taken, false when the caller must run it elsewhere
     */
    boolean runOnLoop(Runnable task, Executor elsewhere);

    /** @return the connection's counters (for counts from any thread) */
    Counters counters();

    /** returnContext() - a handler released a call: its context goes back to the pool. Any thread. */
    void returnContext(ReceiveContext ctx);

    /**
     * fail() - an error forces the connection closed (a failed post or READ). Completion loop only.
     *
     * @param reason what failed
     */
    void fail(String reason);
}
