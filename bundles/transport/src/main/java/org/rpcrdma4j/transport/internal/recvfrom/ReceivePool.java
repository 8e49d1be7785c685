package org.rpcrdma4j.transport.internal.recvfrom;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

import org.rpcrdma4j.codec.RpcRdmaLimits;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * ReceivePool - the receive contexts of one connection: one buffer registered once and cut into
 * inline-threshold-sized receive buffers, posted up to the target and reposted in batches.
 *
 * <p>The target is credits plus one batch, so at least {@code credits} receives stay posted
 * while freed contexts gather into a batch. Calls released by handlers come back through a
 * bounded queue that never allocates ({@link #returnContext}, any thread) and are drained on the
 * completion thread. Everything else is confined to the completion loop, or to a worker holding
 * the connection's send lock (which the loop holds for every pass).
 *
 * <p>Ownership: the connection owns the pool; {@link #deregister()} after the queue pair is
 * destroyed.
 */
public final class ReceivePool {
    private final MemoryRegion region;
    private final ReceiveContext[] contexts;
    private final int[] freeStack;
    private final ArrayBlockingQueue<ReceiveContext> returned;
    private final int target;
    private final int batch;
    private final Counters counters;
    private int freeCount;
    private int posted;
    private boolean starved;

    /**
     * Registers the receive buffers.
     *
     * @throws VerbsException when registration fails (nothing stays registered)
     */
    public ReceivePool(ReceivingConnection owner, ProtectionDomain pd, int count, int bufferLength, int credits, int batch,
                RpcRdmaLimits limits, Counters counters) throws VerbsException {
        this.region = pd.registerMemory(ByteBuffer.allocateDirect(count * bufferLength), Access.LOCAL_WRITE);
        this.contexts = new ReceiveContext[count];
        this.freeStack = new int[count];
        this.returned = new ArrayBlockingQueue<>(count);
        this.target = Math.min(count, credits + batch);
        this.batch = batch;
        this.counters = counters;
        for (int i = 0; i < count; i++) {
            contexts[i] = new ReceiveContext(i, owner, region, i * bufferLength, bufferLength, limits);
            freeStack[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /** @return the most receives this pool keeps posted: the receive queue depth it needs */
    int target() {
        return target;
    }

    int capacity() {
        return contexts.length;
    }

    public int posted() {
        return posted;
    }

    int free() {
        return freeCount;
    }

    ReceiveContext context(int index) {
        return contexts[index];
    }

    /** onReceiveCompletion() - a posted receive came back (with data, in error or flushed). */
    public ReceiveContext onReceiveCompletion(int index) {
        posted--;
        ReceiveContext ctx = contexts[index];
        ctx.setState(ReceiveContext.State.RECEIVED);
        return ctx;
    }

    /** recycle() - a context the completion thread is done with goes back to the free stack. */
    public void recycle(ReceiveContext ctx) {
        ctx.readPlan().reset();
        ctx.clearBody();
        ctx.setState(ReceiveContext.State.FREE);
        freeStack[freeCount++] = ctx.index();
    }

    /** returnContext() - a handler released a call; any thread. Never blocks: the queue holds every context. */
    public void returnContext(ReceiveContext ctx) {
        returned.offer(ctx);
    }

    /** @return contexts taken back from handlers */
    public int drainReturned() {
        int n = 0;
        ReceiveContext ctx;
        while ((ctx = returned.poll()) != null) {
            recycle(ctx);
            n++;
        }
        return n;
    }

    /**
     * postReceives() - repost free contexts in one chain once a batch has gathered (or at once
     * when fewer than a batch are posted).
     *
     * @return receives posted
     * @throws VerbsException when the provider refuses the post (the contexts not posted stay free)
     */
    public int postReceives(QueuePair qp) throws VerbsException {
        int missing = target - posted;
        if (missing == 0 || (missing < batch && posted >= batch)) {
            return 0;
        }
        int n = Math.min(missing, freeCount);
        if (n < missing && !starved) {
            counters.increment(Counter.RECEIVE_STARVATION);
        }
        starved = n < missing;
        if (n == 0) {
            return 0;
        }
        ReceiveWorkRequest first = null;
        ReceiveWorkRequest last = null;
        for (int i = 0; i < n; i++) {
            ReceiveContext ctx = contexts[freeStack[freeCount - 1 - i]];
            ctx.request().next(null);
            if (last == null) {
                first = ctx.request();
            } else {
                last.next(ctx.request());
            }
            last = ctx.request();
        }
        int done = n;
        counters.increment(Counter.RECEIVE_POSTS); // also by the send side, off the loop: atomic, once per batch
        try {
            qp.postReceive(first);
        } catch (VerbsException e) {
            done = Math.max(0, e.failedIndex());
            throw e;
        } finally {
            for (int i = 0; i < done; i++) {
                contexts[freeStack[--freeCount]].setState(ReceiveContext.State.POSTED);
            }
            posted += done;
        }
        return n;
    }

    /** forgetPosted() - the queue pair was destroyed without flushing: its receives are free again. */
    public void forgetPosted() {
        for (ReceiveContext ctx : contexts) {
            if (ctx.state() == ReceiveContext.State.POSTED) {
                recycle(ctx);
            }
        }
        posted = 0;
    }

    /** @return contexts held by the completion thread or handlers (neither free nor posted) */
    public int held() {
        return contexts.length - freeCount - posted;
    }

    /** deregister() - release the receive buffers' registration; after the queue pair is gone. */
    public void deregister() {
        try {
            region.deregister();
        } catch (VerbsException e) {
            counters.increment(Counter.RELEASE_FAILURES);
        }
    }
}
