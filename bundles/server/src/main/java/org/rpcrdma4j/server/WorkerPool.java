package org.rpcrdma4j.server;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
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
 * <p>The hand-off to a sleeping worker, what a call that finds every worker idle pays, is one
 * {@link LockSupport#unpark} made after the pool's lock is let go, with the call handed to that
 * worker directly: the worker wakes holding its call and needs the lock neither to find it nor
 * again right away (a condition signalled under the lock woke a worker straight into the lock
 * its waker still held, a second sleep and wake-up per hand-off: issue #33's lab counted 2.3
 * futex calls per 4 KiB READ on the workers). Idle workers wait on a stack, the one idle last
 * woken first (its caches are warm; the others stay asleep). At most one worker is being woken
 * at a time: calls that arrive meanwhile queue, the woken worker, once it runs, wakes the next
 * sleeper for them, and a worker that finishes a call takes the next queued one without sleeping
 * at all. So a burst of short calls wakes workers one after another only as fast as they start,
 * and the workers already running serve the rest, as nfsd wakes one idle thread per enqueued
 * transport (svc_xprt_enqueue) rather than all of them.
 *
 * <p>Threading: {@link #execute} from any thread; a short lock, no allocation in steady state
 * (emptied queues are reused). A call that throws (anything, an Error too) is logged and costs
 * no worker thread.
 */
final class WorkerPool {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
    /** Emptied connection queues kept for reuse. */
    private static final int SPARE_QUEUES = 64;
    /** Handed to an idle worker to end it (shut down with nothing queued, or stopped). */
    private static final Runnable END = () -> { };

    private enum State { RUNNING, SHUTDOWN, STOP }

    /** One connection's waiting calls; in {@link #ready} at most once. */
    private static final class ConnectionQueue {
        Object connection;
        final ArrayDeque<Runnable> calls = new ArrayDeque<>();
    }

    /** One worker thread and the call handed to it while it slept. */
    private static final class Worker {
        Thread thread;
        /** Set under {@link #lock} when the worker is taken off the idle stack; the worker clears it. */
        volatile Runnable handed;
        /** The next worker down the idle stack (under {@link #lock}). */
        Worker nextIdle;
    }

    private final ReentrantLock lock = new ReentrantLock();
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
    /** Idle workers, the one idle last on top (under {@link #lock}). */
    private Worker idleTop;
    /**
     * A worker was handed a call and woken, and has not yet begun to run (under {@link #lock}):
     * calls arriving meanwhile queue, and that worker wakes the next one for them.
     */
    private boolean waking;
    /** Times a worker waiting for a call was handed one (under {@link #lock}): see {@link #wakeups()}. */
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
            Worker worker = new Worker();
            worker.thread = factory.newThread(() -> work(worker));
            this.threads[i] = worker.thread;
        }
        running = threads;
        for (Thread t : this.threads) {
            t.start();
        }
    }

    /**
     * execute() - hand {@code call} to an idle worker when one sleeps and none is being woken;
     * else queue it behind the calls {@code connection} has waiting, the connection's turn coming
     * after every other connection with calls waiting had one.
     *
     * @throws RejectedExecutionException when shut down, or the connection already has
     *         {@code maxQueuedPerConnection} calls waiting
     */
    void execute(Object connection, Runnable call) {
        Worker wake = null;
        lock.lock();
        try {
            if (state != State.RUNNING) {
                throw new RejectedExecutionException("the worker pool is shut down");
            }
            if (!waking && idleTop != null && ready.isEmpty()) {
                wake = handToIdle(call);
            } else {
                enqueue(connection, call);
            }
        } finally {
            lock.unlock();
        }
        if (wake != null) {
            LockSupport.unpark(wake.thread);
        }
    }

    /** enqueue() - under {@link #lock}: {@code call} behind its connection's waiting calls. */
    private void enqueue(Object connection, Runnable call) {
        ConnectionQueue queue = queues.get(connection);
        if (queue == null) {
            queue = spare.isEmpty() ? new ConnectionQueue() : spare.poll();
            queue.connection = connection;
            queues.put(connection, queue);
            ready.add(queue);
        } else if (queue.calls.size() >= maxQueuedPerConnection) {
            refusedOverBound.increment();
            throw new RejectedExecutionException("connection " + connection + " already has "
                    + maxQueuedPerConnection + " calls waiting for a worker (maxQueuedCallsPerConnection)");
        }
        queue.calls.add(call);
    }

    /**
     * handToIdle() - under {@link #lock}: the idle worker on top takes {@code call} and is marked
     * as being woken; the caller unparks it once it let go of the lock.
     */
    private Worker handToIdle(Runnable call) {
        Worker worker = idleTop;
        idleTop = worker.nextIdle;
        worker.nextIdle = null;
        worker.handed = call;
        waking = true;
        wakeups++;
        return worker;
    }

    /**
     * pollQueued() - under {@link #lock}: the first call of the connection whose turn it is (that
     * connection to the back of the line if it has more), or null when none waits.
     */
    private Runnable pollQueued() {
        ConnectionQueue queue = ready.poll();
        if (queue == null) {
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
        }
        return call;
    }

    /** @return calls refused because their connection had maxQueuedPerConnection waiting */
    long refusedOverBound() {
        return refusedOverBound.sum();
    }

    /**
     * @return times a call was handed to a worker that waited for one since the pool started:
     *         each one a thread the operating system puts back on a CPU (a futex wake-up, and
     *         between CPUs an interrupt), the cost of handing calls to sleeping workers. Per
     *         dispatched call, it says how often a call found no worker running.
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
        Worker idle;
        lock.lock();
        try {
            if (state == State.RUNNING) {
                state = State.SHUTDOWN;
            }
            idle = endIdleWorkers();
        } finally {
            lock.unlock();
        }
        unparkAll(idle);
    }

    /**
     * shutdownNow() - refuse new calls, drop the calls still queued (as {@code shutdownNow} of
     * an executor does) and interrupt the workers.
     *
     * @return calls dropped
     */
    int shutdownNow() {
        int dropped = 0;
        Worker idle;
        lock.lock();
        try {
            state = State.STOP;
            for (ConnectionQueue queue : ready) {
                dropped += queue.calls.size();
                queue.calls.clear();
            }
            ready.clear();
            queues.clear();
            idle = endIdleWorkers();
        } finally {
            lock.unlock();
        }
        unparkAll(idle);
        for (Thread t : threads) {
            t.interrupt();
        }
        return dropped;
    }

    /**
     * endIdleWorkers() - under {@link #lock}, the pool no longer running: every idle worker is
     * handed {@link #END} (nothing is queued while a worker is idle and none is being woken, and a
     * worker that runs finishes the queue before it would sleep).
     *
     * @return the idle workers, linked, to unpark once the lock is let go
     */
    private Worker endIdleWorkers() {
        Worker idle = idleTop;
        idleTop = null;
        for (Worker w = idle; w != null; w = w.nextIdle) {
            w.handed = END;
        }
        return idle;
    }

    private static void unparkAll(Worker idle) {
        Worker w = idle;
        while (w != null) {
            Worker next = w.nextIdle;
            w.nextIdle = null;
            LockSupport.unpark(w.thread);
            w = next;
        }
    }

    /**
     * awaitTermination() - wait until every worker has left its last call and its thread has
     * ended. The count of running workers reaches zero a moment before the threads themselves
     * end, so the threads are joined too: a bundle that stops the pool and is then told "ended"
     * leaves no thread of its class loader behind.
     *
     * @return true when every worker thread ended within {@code timeout}
     */
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        lock.lock();
        try {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                allEnded.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
        return ThreadEnds.awaitEnded(Arrays.asList(threads), deadline);
    }

    private void work(Worker me) {
        try {
            Runnable call;
            while ((call = next(me)) != null) {
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
     * next() - the worker's next call: a queued one if any (the connection whose turn it is),
     * else it goes on the idle stack and sleeps until a call is handed to it.
     *
     * @return null when the worker is to end (shut down and nothing left, or stopped)
     */
    private Runnable next(Worker me) {
        lock.lock();
        try {
            if (state == State.STOP) {
                return null;
            }
            Runnable call = pollQueued();
            if (call != null) {
                return call;
            }
            if (state != State.RUNNING) {
                return null;
            }
            me.nextIdle = idleTop;
            idleTop = me;
        } finally {
            lock.unlock();
        }
        return awaitHanded(me);
    }

    /**
     * awaitHanded() - sleep until a call is handed to this worker (an interrupt, which only
     * {@link #shutdownNow} means and which hands {@link #END} to idle workers itself, or a spurious
     * return of park, just goes on waiting); once awake, wake the next idle worker when calls
     * queued while this one was being woken.
     *
     * @return the call; null for {@link #END}
     */
    private Runnable awaitHanded(Worker me) {
        Runnable call;
        while ((call = me.handed) == null) {
            LockSupport.park(this);
            Thread.interrupted(); // only a stop interrupts, and it hands END; a stale status would make park spin
        }
        me.handed = null;
        if (call == END) {
            return null;
        }
        Worker wake = null;
        lock.lock();
        try {
            waking = false;
            if (idleTop != null && !ready.isEmpty() && state != State.STOP) {
                wake = handToIdle(pollQueued());
            }
        } finally {
            lock.unlock();
        }
        if (wake != null) {
            LockSupport.unpark(wake.thread);
        }
        return call;
    }
}
