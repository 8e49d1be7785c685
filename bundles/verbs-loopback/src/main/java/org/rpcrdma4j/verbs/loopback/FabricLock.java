package org.rpcrdma4j.verbs.loopback;

import java.util.concurrent.locks.ReentrantLock;

/**
 * FabricLock - the fabric's one lock, taken by spinning briefly before it parks, as an adaptive
 * mutex does (glibc's PTHREAD_MUTEX_ADAPTIVE_NP, the kernel mutex's optimistic spin).
 *
 * <p>Every post, poll and completion of the fabric takes this lock for a few microseconds (a
 * SEND executed on the poster's thread copies the message and completes it under it). A plain
 * ReentrantLock parks a thread that finds it held, and the holder's unlock then unparks it: a
 * futex wait and a futex wake, each costing more than the critical section, on the path of every
 * message. Profiled at 8 calls in flight over the fabric (async-profiler, cpu), the park in
 * acquire and the unpark in release took about 30 % of all CPU samples, where real NICs have
 * no lock between one side's post and the other side's poll; with the spin, the RPC-over-RDMA
 * benchmarks ran 1.8x as many small calls per second. Spinning for about the length of a
 * critical section first takes most contended acquisitions without either; a holder that is
 * descheduled or slow still parks the waiter, bounded by {@link #SPINS}.
 *
 * <p>Semantics are ReentrantLock's (non-fair, reentrant, same conditions): only how a waiter
 * waits changes.
 */
final class FabricLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    /**
     * Looks before parking, each after a Thread.onSpinWait(): about 1 microsecond on this
     * project's 2-CPU host (measured), a few on CPUs with a longer PAUSE.
     */
    static final int SPINS = 64;

    @Override
    public void lock() {
        if (tryLock()) {
            return;
        }
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if (!isLocked() && tryLock()) {
                return;
            }
        }
        super.lock();
    }
}
