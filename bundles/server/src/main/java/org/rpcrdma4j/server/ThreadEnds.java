package org.rpcrdma4j.server;

import java.util.concurrent.TimeUnit;

/**
 * ThreadEnds - waiting for a service's own threads to end when it stops: each is joined in the
 * time left before one deadline, and only threads that actually ended count. A count of workers
 * that "left their loop" reaches zero a moment before the threads themselves end; a bundle told
 * "stopped" on that count could leave threads of its class loader running.
 *
 * <pre>{@code
 * boolean ended = ThreadEnds.awaitEnded(threads, System.nanoTime() + unit.toNanos(timeout));
 * }</pre>
 */
public final class ThreadEnds {
    private ThreadEnds() {
    }

    /**
     * awaitEnded() - join every thread until {@code deadlineNanos} (a {@link System#nanoTime()}
     * instant); a thread never started counts as ended.
     *
     * @return true when every thread ended by the deadline
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public static boolean awaitEnded(Iterable<Thread> threads, long deadlineNanos) throws InterruptedException {
        for (Thread t : threads) {
            long left = deadlineNanos - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }
}
