package org.rpcrdma4j.transport.internal.connection;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.backchannel.BackchannelLoop;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivingLoop;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ConnectionLoop - the completion loop that owns a connection, as the connection sees it: the
 * configuration and counters of the transport, the loop's clock and its thread, its completion
 * channel, and the transport-wide pools the loop reaches. The loop package implements it and
 * hands it to each {@link ConnectionState} it accepts; the connection passes on the narrower
 * views the receive path ({@link ReceivingLoop}) and the back channel ({@link BackchannelLoop})
 * need.
 *
 * <p>Threading: each method says; where none is named, any thread.
 */
public interface ConnectionLoop extends ReceivingLoop, BackchannelLoop {

    /** @return the transport's configuration */
    TransportConfig config();

    /** @return the transport's counters (a connection's are a writer of them) */
    Counters counters();

    /** @return the loop's clock (System.nanoTime() at the start of the current pass); loop thread */
    long now();

    /** @return how long a connection with requests outstanding may go without a completion */
    long stallTimeoutNanos();

    /** @return replies handed in by workers and not yet taken by their connection's send side */
    AtomicInteger repliesInTransit();

    /** @return the transport's pool of buffers for replies larger than a pending reply's own */
    LargeReplyBuffers largeReplyBuffers();

    /**
     * createCompletionQueue() - a queue for a connection of this loop: on the loop's channel, or a
     * plain one when the loop polls. Loop thread.
     */
    CompletionQueue createCompletionQueue(VerbsDevice device, int capacity) throws VerbsException;

    /**
     * runOnLoop() - offer a delivered call's work to the loop's thread
     * ({@link org.rpcrdma4j.transport.ReceivedCall#runOnReceivingThread}).
     *
     * @return true when taken; false when the caller must run it elsewhere
     */
    boolean runOnLoop(Runnable task, Executor elsewhere);
}
