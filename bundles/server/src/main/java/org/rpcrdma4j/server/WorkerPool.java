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
 * <p>Running workers ({@code runningWorkers}): a call is handed to a waiting worker only while
 * fewer than that many run calls (by default as many as the machine has CPUs). A worker back from
 * a call takes the next at once, so under load a few workers run call after call and the others
 * sleep, instead of every queued call waking a worker of its own (each wake-up a futex call and
 * a trip through the scheduler; on a machine with few CPUs the woken threads only take turns on
 * them). Calls that block (disk, a lock, a call waiting for another) must not leave the queue
 * unserved: while the target holds calls back, one waiting worker watches, waking every
 * {@code blockedCallMillis}; when fewer than the target of the running workers are in a call
 * that started less than that long ago (the others count as blocked), it takes a call itself.
 * So a pool whose calls all block grows by one worker per {@code blockedCallMillis} up to
 * {@code workerThreads}, as long as calls wait, and an idle pool costs no wake-up.
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
    /** How many workers may run calls before a queued call stops waking a waiting worker. */
    private final int runningTarget;
    /** A call running longer than this counts as blocked: the watcher may add a worker beside it. */
    private final long blockedCallNanos;
    /** Per worker: when its current call started (System.nanoTime(), never 0), or 0. Under {@link #lock}. */
    private final long[] callStartedAt;
    private State state = State.RUNNING;
    /** Worker threads not yet ended. */
    private int running;
    /** Workers waiting for a call (in {@link #awaitCall}). Under {@link #lock}. */
    private int waiting;
    /** A waiting worker watches for blocked calls (timed waits). Under {@link #lock}. */
    private boolean watcherPresent;
    /** Times a worker waiting for a call was woken (under {@link #lock}): see {@link #wakeups()}. */
    private long wakeups;
    /** Workers added beside calls counted as blocked (under {@link #lock}). */
    private long addedForBlockedCalls;

    /** A pool whose every worker may run calls at once (no running target). */
    WorkerPool(int threads, int maxQueuedPerConnection, ThreadFactory factory) {
        this(threads, maxQueuedPerConnection, threads, 1, factory);
    }

    /**
     * @param threads worker threads, at least 1 (started here)
     * @param maxQueuedPerConnection calls one connection may have waiting, at least 1
     * @param runningTarget workers that may run calls before queued calls stop waking others, 1
     *        to threads
     * @param blockedCallMillis a call running this long counts as blocked, at least 1
     * @param factory makes the worker threads
     */
    WorkerPool(int threads, int maxQueuedPerConnection, int runningTarget, int blockedCallMillis, ThreadFactory factory) {
        if (threads < 1 || maxQueuedPerConnection < 1 || blockedCallMillis < 1) {
            throw new IllegalArgumentException("threads, maxQueuedPerConnection and blockedCallMillis must be positive");
        }
        if (runningTarget < 1 || runningTarget > threads) {
            throw new IllegalArgumentException("runningTarget must be 1.." + threads + ", was " + runningTarget);
        }
        this.maxQueuedPerConnection = maxQueuedPerConnection;
        this.runningTarget = runningTarget;
        this.blockedCallNanos = TimeUnit.MILLISECONDS.toNanos(blockedCallMillis);
        this.callStartedAt = new long[threads];
        this.threads = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int worker = i;
            this.threads[i] = factory.newThread(() -> work(worker));
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
                wakeWorker();
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

    /**
     * @return workers the watcher added beside calls that ran longer than blockedCallMillis (the
     *         running target held back by blocked calls)
     */
    long addedForBlockedCalls() {
        lock.lock();
        try {
            return addedForBlockedCalls;
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

    private void work(int worker) {
        try {
            Runnable call;
            while ((call = take(worker)) != null) {
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
     * with more calls waiting goes to the back of the line (and another worker is woken for it,
     * within the running target). A worker back from a call takes the next one at once, within
     * the target.
     *
     * @return null when the worker is to end (shut down and nothing left, or stopped)
     */
    private Runnable take(int worker) {
        lock.lock();
        try {
            callStartedAt[worker] = 0;
            // Back from a call (or just started), a worker takes the next call at once unless
            // more than the target run calls (workers added beside blocked calls, whose calls
            // ended): then it waits, and the pool shrinks back to the target.
            if ((ready.isEmpty() || runningCalls() > runningTarget) && !awaitCall()) {
                return null;
            }
            if (state == State.STOP) {
                return null;
            }
            ConnectionQueue queue = ready.poll();
            Runnable call = queue.calls.poll();
            if (queue.calls.isEmpty()) {
                queues.remove(queue.connection);
                queue.connection = null;
                if (spare.size() < SPARE_QUEUES) {
                    spare.add(queue);
                }
            } else {
                ready.add(queue);
                wakeWorker();
            }
            long now = System.nanoTime();
            callStartedAt[worker] = now != 0 ? now : 1;
            return call;
        } finally {
            lock.unlock();
        }
    }

    /**
     * awaitCall() - under {@link #lock}: wait until a call is queued and this worker may run it
     * (fewer than the running target run calls, or, as the watcher, fewer than the target run
     * calls that are not blocked), or the pool shuts down.
     *
     * @return true when a call is queued for this worker to take; false when the worker is to end
     */
    private boolean awaitCall() {
        waiting++;
        boolean watcher = false;
        try {
            while (true) {
                if (state == State.STOP) {
                    return false;
                }
                if (state == State.SHUTDOWN) {
                    return !ready.isEmpty(); // drain what is queued, target or not
                }
                if (!ready.isEmpty()) {
                    if (runningCalls() < runningTarget) {
                        return true;
                    }
                    if (watcher && runningCalls() - blockedCalls() < runningTarget) {
                        addedForBlockedCalls++;
                        return true;
                    }
                    if (!watcherPresent) {
                        watcherPresent = true;
                        watcher = true;
                    }
                } else if (watcher) {
                    // nothing waits any more: stop watching
                    watcherPresent = false;
                    watcher = false;
                }
                try {
                    if (watcher) {
                        workReady.awaitNanos(blockedCallNanos);
                    } else {
                        workReady.await();
                    }
                    wakeups++;
                } catch (InterruptedException e) {
                    // only shutdownNow() interrupts; the loop sees STOP
                }
            }
        } finally {
            if (watcher) {
                watcherPresent = false;
            }
            waiting--;
        }
    }

    /** Under {@link #lock}: workers running calls (or between two), not waiting. */
    private int runningCalls() {
        return running - waiting;
    }

    /** Under {@link #lock}: workers in a call that started blockedCallMillis ago or earlier. */
    private int blockedCalls() {
        long now = System.nanoTime();
        int blocked = 0;
        for (long started : callStartedAt) {
            if (started != 0 && now - started >= blockedCallNanos) {
                blocked++;
            }
        }
        return blocked;
    }

    /**
     * wakeWorker() - under {@link #lock}: a call was queued. Wake a waiting worker when fewer than
     * the running target run calls, or, when the target is reached and nobody watches, one to
     * watch for blocked calls. Otherwise a running worker takes the call when back from its own.
     */
    private void wakeWorker() {
        if (waiting > 0 && (runningCalls() < runningTarget || !watcherPresent)) {
            workReady.signal();
        }
    }
}
