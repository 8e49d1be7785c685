package org.rpcrdma4j.transport.internal.connection;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.transport.internal.read.ReadScheduler;
import org.rpcrdma4j.transport.internal.recvfrom.MessageDispatcher;
import org.rpcrdma4j.transport.internal.recvfrom.ReceiveContext;
import org.rpcrdma4j.transport.internal.recvfrom.ReceivePool;
import org.rpcrdma4j.transport.internal.sendto.SendQueue;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CompletionSorter - polls one connection's completion queue and hands each completion to the
 * part whose work request it completes (by {@link WorkRequestIds#kind}): a receive to the
 * {@link MessageDispatcher}, a SEND or WRITE to the {@link SendQueue}, a READ to the
 * {@link ReadScheduler}. A completion that shows the queue pair in error closes the connection.
 *
 * <p>Threading: the loop's pass over the connection only, under the send lock.
 */
final class CompletionSorter {
    /** The connection's logger: the lines keep their category. */
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionState.class);

    private final ConnectionState connection;
    private final CompletionQueue completionQueue;
    private final ReceivePool receivePool;
    private final SendQueue sendQueue;
    private final ReadScheduler<ReceiveContext> readScheduler;
    private final MessageDispatcher dispatcher;
    private final Counters counters;

    CompletionSorter(ConnectionState connection, CompletionQueue completionQueue, ReceivePool receivePool,
            SendQueue sendQueue, ReadScheduler<ReceiveContext> readScheduler, MessageDispatcher dispatcher, Counters counters) {
        this.connection = connection;
        this.completionQueue = completionQueue;
        this.receivePool = receivePool;
        this.sendQueue = sendQueue;
        this.readScheduler = readScheduler;
        this.dispatcher = dispatcher;
        this.counters = counters;
    }

    /**
     * pollCompletions() - takes up to {@code completions.length} completions and sorts them.
     *
     * @param completions the loop's reusable completion array
     * @return how many were taken
     */
    int pollCompletions(WorkCompletion[] completions) {
        int n;
        try {
            n = completionQueue.poll(completions, completions.length);
        } catch (VerbsException e) {
            counters.increment(Counter.POST_FAILURES);
            connection.fail("polling the completion queue failed: " + e.getMessage());
            return 0;
        }
        if (n > 0) {
            counters.addOwned(Counter.COMPLETIONS, n);
        }
        int sends = 0;
        int writes = 0;
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (wc.status() == CompletionStatus.WORK_REQUEST_FLUSHED && !connection.isClosing()) {
                // Work flushed before we began closing: the queue pair is in error, because the
                // peer went away (its disconnect event may come later) or because of a fault (a
                // peer's RDMA with a bad rkey, a fatal asynchronous error). As svcrdma: close
                // this connection, and never post into the errored queue pair again, which would
                // flush every repost at once, forever.
                counters.increment(Counter.QUEUE_PAIR_FLUSHES);
                LOG.debug("RPC-over-RDMA connection from {} closes: its queue pair flushed {}", connection.remoteAddress(),
                        SendQueue.describe(wc));
                connection.beginClose(false);
            }
            switch (WorkRequestIds.kind(wc.id())) {
                case WorkRequestIds.RECEIVE:
                    onReceiveCompletion(wc);
                    break;
                case WorkRequestIds.SEND:
                    sends++;
                    if (!sendQueue.onSendCompletion(wc)) {
                        connection.fail(sendQueue.failure());
                    }
                    break;
                case WorkRequestIds.READ:
                    readScheduler.onReadCompletion(wc);
                    break;
                case WorkRequestIds.WRITE:
                    writes++;
                    if (!sendQueue.onWriteCompletion(wc)) {
                        connection.fail(sendQueue.failure());
                    }
                    break;
                default:
                    counters.increment(Counter.POST_FAILURES);
                    break;
            }
        }
        if (sends > 0) {
            counters.addOwned(Counter.SEND_COMPLETIONS, sends);
        }
        if (writes > 0) {
            counters.addOwned(Counter.WRITE_COMPLETIONS, writes);
        }
        return n;
    }

    private void onReceiveCompletion(WorkCompletion wc) {
        ReceiveContext ctx = receivePool.onReceiveCompletion(WorkRequestIds.index(wc.id()));
        if (!wc.isSuccess()) {
            if (wc.status() != CompletionStatus.WORK_REQUEST_FLUSHED) {
                counters.increment(Counter.RECEIVE_ERRORS);
                connection.fail("a receive completed with " + SendQueue.describe(wc));
            }
            receivePool.recycle(ctx);
        } else if (connection.isClosing()) {
            counters.increment(Counter.RECEIVES_DISCARDED_AT_CLOSE);
            receivePool.recycle(ctx);
        } else {
            dispatcher.onMessage(ctx, wc.byteCount());
        }
    }
}
