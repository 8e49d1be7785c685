package org.rpcrdma4j.server;

import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * WorkerPool - the host's worker threads, serving calls from one queue per connection, the
 * connections taken in turn (round-robin), as Linux's nfsd threads take transports in turn from
 * their pool's queue and one request from each: a connection that keeps many calls in flight
 * gets one call served per turn, so a quiet connection's call waits behind at most one call of
 * each other busy connection (plus those already running), never behind all of their backlog.
 *
 * <p>A connection is any object that identifies one (compared by identity); its queue exists
 * while it has calls waiting, so a closed connection leaves nothing behind. What one connection
 * may have queued is bounded ({@code maxQueuedPerConnection}): a call beyond it is refused with
 * {@link RejectedExecutionException}, which the caller counts and reports (the RPC-over-RDMA
 * transport drops it, logged; the dispatcher answers SYSTEM_ERR). Over RPC-over-RDMA a connection
 * cannot reach a bound as large as its receive contexts: what it holds, queued or running, is
 * bounded by them, and a client beyond its credits meets RNR, back-pressured at its own device.
 *
 * <p>Threading: {@link #execute} from any thread; a short lock, no allocation in steady state
 * (emptied queues are reused). A call that throws (anything, an Error too) is logged and costs
 * no worker thread.
 */
final class WorkerPool {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
    /** Emptied connection queues kept for reuse. */
    private static final int SPARE_QUEUES = 64;

    private enum State { RUNNING, SHUTDOWN, STOP }

    /** One connection's waiting calls; in {@link #ready} at most once. */
    private static final class ConnectionQueue {
        Object connection;
        final ArrayDeque<Runnable> calls = new ArrayDeque<>();
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workReady = lock.newCondition();
    private final Condition allEnded = lock.newCondition();
    private final Map<Object, ConnectionQueue> queues = new IdentityHashMap<>();
    /** Connections with calls waiting, in the order they are served; each once. */
    private final ArrayDeque<ConnectionQueue> ready = new ArrayDeque<>();
    private final ArrayDeque<ConnectionQueue> spare = new ArrayDeque<>();
    private final int maxQueuedPerConnection;
    private final Thread[] threads;
    private final LongAdder refusedOverBound = new LongAdder();
    private State state = State.RUNNING;
    private int running;
    /** Times a worker waiting for a call was woken (under {@link #lock}): see {@link #wakeups()}. */
    private long wakeups;

    /**
     * @param threads worker threads, at least 1 (started here)
     * @param maxQueuedPerConnection calls one connection may have waiting, at least 1
     * @param factory makes the worker threads
     */
    WorkerPool(int threads, int maxQueuedPerConnection, ThreadFactory factory) {
        if (threads < 1 || maxQueuedPerConnection < 1) {
            throw new IllegalArgumentException("threads and maxQueuedPerConnection must be positive");
        }
        this.maxQueuedPerConnection = maxQueuedPerConnection;
        this.threads = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            this.threads[i] = factory.newThread(this::work);
        }
        running = threads;
        for (Thread t : this.threads) {
            t.start();
        }
    }

    /**
     * execute() - queue {@code call} behind the calls {@code connection} has waiting; the
     * connection's turn comes after every other connection with calls waiting had one.
     *
     * @throws RejectedExecutionException when shut down, or the connection already has
     *         {@code maxQueuedPerConnection} calls waiting
     */
    void execute(Object connection, Runnable call) {
        lock.lock();
        try {
            if (state != State.RUNNING) {
                throw new RejectedExecutionException("the worker pool is shut down");
            }
            ConnectionQueue queue = queues.get(connection);
            if (queue == null) {
                queue = spare.isEmpty() ? new ConnectionQueue() : spare.poll();
                queue.connection = connection;
                queues.put(connection, queue);
                ready.add(queue);
                workReady.signal();
            } else if (queue.calls.size() >= maxQueuedPerConnection) {
                refusedOverBound.increment();
                throw new RejectedExecutionException("connection " + connection + " already has "
                        + maxQueuedPerConnection + " calls waiting for a worker (maxQueuedCallsPerConnection)");
            }
            queue.calls.add(call);
        } finally {
            lock.unlock();
        }
    }

    /** @return calls refused because their connection had maxQueuedPerConnection waiting */
    long refusedOverBound() {
        return refusedOverBound.sum();
    }

    /**
     * @return times a worker that waited for a call was woken since the pool started: each one a
     *         thread the operating system put back on a CPU (a futex wake-up, and between CPUs an
     *         interrupt), the cost of handing calls to workers one at a time. Per dispatched call,
     *         it says how often a call found no worker running.
     */
    long wakeups() {
        lock.lock();
        try {
            return wakeups;
        } finally {
            lock.unlock();
        }
    }

    /** shutdown() - refuse new calls; the workers finish every call queued, then end. */
    void shutdown() {
        lock.lock();
        try {
            if (state == State.RUNNING) {
                state = State.SHUTDOWN;
            }
            workReady.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * shutdownNow() - refuse new calls, drop the calls still queued (as {@code shutdownNow} of
     * an executor does) and interrupt the workers.
     *
     * @return calls dropped
     */
    int shutdownNow() {
        int dropped = 0;
        lock.lock();
        try {
            state = State.STOP;
            for (ConnectionQueue queue : ready) {
                dropped += queue.calls.size();
                queue.calls.clear();
            }
            ready.clear();
            queues.clear();
            workReady.signalAll();
        } finally {
            lock.unlock();
        }
        for (Thread t : threads) {
            t.interrupt();
        }
        return dropped;
    }

    /** @return true when every worker ended within {@code timeout} */
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lock();
        try {
            while (running > 0) {
                if (left <= 0) {
                    return false;
                }
                left = allEnded.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        try {
            Runnable call;
            while ((call = take()) != null) {
                try {
                    call.run();
                } catch (Throwable e) {
                    LOG.error("A call failed on worker {}; the worker goes on", Thread.currentThread().getName(), e);
                }
            }
        } finally {
            lock.lock();
            try {
                if (--running == 0) {
                    allEnded.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * take() - the next call: the first call of the connection whose turn it is; a connection
     * with more calls waiting goes to the back of the line (and another worker is woken for it).
     *
     * @return null when the worker is to end (shut down and nothing left, or stopped)
     */
    private Runnable take() {
        lock.lock();
        try {
            ConnectionQueue queue;
            while ((queue = ready.poll()) == null) {
                if (state != State.RUNNING) {
                    return null;
                }
                try {
                    workReady.await();
                    wakeups++;
                } catch (InterruptedException e) {
                    if (state == State.STOP) {
                        return null;
                    }
                }
            }
            if (state == State.STOP) {
                return null;
            }
            Runnable call = queue.calls.poll();
            if (queue.calls.isEmpty()) {
                queues.remove(queue.connection);
                queue.connection = null;
                if (spare.size() < SPARE_QUEUES) {
                    spare.add(queue);
                }
            } else {
                ready.add(queue);
                workReady.signal();
            }
            return call;
        } finally {
            lock.unlock();
        }
    }
}
