package org.rpcrdma4j.transport.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LoopCrew - the threads that run one {@link CompletionLoop}'s passes (leader/followers, with
 * {@code loopRunsCalls}): who leads, the hand-over between them, the calls a leader keeps to
 * run itself, and how the leader spins before it sleeps.
 *
 * <p>The crew has two threads. One leads: it runs the passes and sleeps on the loop's channel.
 * The other stands by. When a pass that follows one that left no call to the workers (the loop
 * has caught up: no backlog) delivers calls and the standby is free, the leader keeps the first
 * call for itself ({@link CompletionLoop#runOnLoop}), ends the pass, hands the loop to the standby and
 * runs the call (decode, program, reply) on its own thread, then stands by in turn. A call then
 * costs one wake-up (the completion's) instead of two (the loop's, then a worker's): an nfsd
 * thread likewise takes the request svcrdma queued and runs it, with no thread in between. A call
 * that blocks (disk) holds only its own thread: the other leads, and while neither stands by,
 * calls go to the workers, so the loop never stops polling. When the pass kept every call it
 * delivered (a client that waits for these replies before it sends again: one call at a time, or
 * a batch), the next leader polls for the next call for up to nextCallSpinMicros before it sleeps
 * ({@link NextCallSpin}), adaptively.
 *
 * <p>The lazy hand-over ({@code callTimeSliceMicros}): while calls are kept, the standby waits
 * with a timeout (it watches), so the leader need not wake it: it steps aside ({@link #stepAside}),
 * runs the call and takes the loop back, and the standby takes the loop over only if the call
 * outruns its time slice. A lone call then costs no wake-up of the crew; once no call was kept for
 * {@value #WATCH_QUIET_SLICES} slices the standby sleeps untimed again, and the leader that keeps
 * the next call hands the loop over, waking it. While the standby watches, the leader keeps every call of the
 * pass (up to {@value #MAX_CALLS_RUN_ON_LOOP_PER_PASS}) and runs them one after another: a
 * client with several calls in flight sends them together, and each kept call saves a worker's
 * wake-up. Only while calls are short ({@link #BATCH_SHARE_OF_SLICE}): longer ones
 * the workers run side by side. A call that outruns its slice holds the ones behind it only until
 * the standby takes the loop over: the standby sends those to the workers ({@link CallsRunOnLoop}).
 *
 * <p>Threading: a new leader takes the loop under the crew lock, which orders everything the
 * previous one wrote; what is "leader only" below is confined to the thread leading.
 */
public final class LoopCrew {
    /** The loop's logger: the lines keep their category. */
    private static final Logger LOG = LoggerFactory.getLogger(CompletionLoop.class);
    /** A watching standby stops its timed checks once no call was kept for this many time slices. */
    public static final int WATCH_QUIET_SLICES = 20;
    /**
     * The most calls a leader keeps from one pass to run one after another (a client with
     * several calls in flight sends them together, and the pass that finds them saves a worker's
     * wake-up per call). More than one only while the standby watches, so a call that blocks
     * holds the ones behind it for at most about a time slice before the standby takes the loop
     * over and sends them to the workers.
     */
    public static final int MAX_CALLS_RUN_ON_LOOP_PER_PASS = 16;
    /**
     * A leader keeps more than one call of a pass only while a full batch of calls as long as
     * the ones it kept lately (moving average) would take at most this share of a time slice
     * (1/{@value}): while it runs a batch nobody polls the loop's other connections, so a batch
     * adds them little latency; and such calls (about 15 us at the default slice) cost about what
     * handing one to a worker costs (a wake-up, 5-50 us between CPUs), so running them here is
     * cheaper even when other CPUs are free. Longer calls go to the workers, who run them side by
     * side on a machine with many CPUs instead of one after another on this thread.
     */
    public static final int BATCH_SHARE_OF_SLICE = 4;

    private final CompletionLoop loop;
    private final int index;
    /** The transport's counters. */
    private final Counters counters;
    /** The loop's own counts, written by its leader. */
    private final Counters loopCounters;
    /** How the leader after a pass whose calls were all kept polls for the next call. */
    private final NextCallSpin nextCallSpin;
    private final long callTimeSliceNanos;
    /** With no call kept for this long, a watching standby stops its timed checks and sleeps until woken. */
    private final long watchQuietNanos;
    /** The longest call (moving average) kept in batches: see {@link #BATCH_SHARE_OF_SLICE}. */
    private final long batchedCallLimitNanos;

    /** Guards the change of leader; the standby waits on {@link #leadershipFree}. */
    private final ReentrantLock crew = new ReentrantLock();
    private final Condition leadershipFree = crew.newCondition();
    /** The crew thread running the loop's passes; null while the loop changes hands. Written under {@link #crew}. */
    private volatile Thread leader;
    /** Set once a crew thread ran: from then on only the leader is "in the loop". */
    private volatile boolean started;
    /**
     * Crew threads standing by (waiting to lead), so the leader may keep a call for itself.
     * Written under {@link #crew}; the leader reads it without.
     */
    private volatile int threadsStandingBy;
    /** The calls of the leader that stepped aside, for a standby that takes the loop over. Under {@link #crew}. */
    private CallsRunOnLoop callsSteppedAside;
    /**
     * When the leader stepped aside to run a call it kept without waking the standby
     * (System.nanoTime(), never 0), or 0. Under {@link #crew}.
     */
    private long steppedAsideAt;
    /**
     * The standby waits with a timeout, checking on a leader that stepped aside. Written under
     * {@link #crew}; {@link #keep} reads it without, to keep more than one call only while it holds.
     */
    private volatile boolean standbyWatching;
    /** When the leader last kept a call (System.nanoTime()); the standby watches while calls are kept. */
    private volatile long lastRunOnLoopNanos;
    /**
     * Moving average (1/8) of the time between two kept calls (leader writes, standby reads). The
     * standby watches only while calls are kept at least twice per time slice: a watch costs a
     * timed wake-up per slice, and saves one wake-up per kept call, so below that rate it would
     * cost more than it saves (the lab's 4 KiB random reads over rxe keep about 700 calls a second).
     */
    private volatile long runOnLoopIntervalNanos;
    /**
     * Moving average (1/8) of how long a kept call ran, measured by the crew thread that ran it
     * (one at a time; the leader reads it): calls longer than {@link #batchedCallLimitNanos} are
     * not kept in batches.
     */
    private volatile long keptCallNanos;
    /**
     * The pass that ended the last leadership kept every call it delivered: a client that sends
     * its next calls once it has these replies (one call at a time, or a batch in flight). Set by
     * the old leader, read by the new one (or itself, back from stepping aside); under {@link #crew}.
     */
    private boolean nextCallExpected;
    LoopCrew(CompletionLoop loop, int index, Counters counters, Counters loopCounters, TransportConfig config) {
        this.loop = loop;
        this.index = index;
        this.counters = counters;
        this.loopCounters = loopCounters;
        this.nextCallSpin = new NextCallSpin(loop, loopCounters, TimeUnit.MICROSECONDS.toNanos(config.nextCallSpinMicros()));
        this.callTimeSliceNanos = TimeUnit.MICROSECONDS.toNanos(config.callTimeSliceMicros());
        this.watchQuietNanos = WATCH_QUIET_SLICES * callTimeSliceNanos;
        this.batchedCallLimitNanos = callTimeSliceNanos / BATCH_SHARE_OF_SLICE
                / MAX_CALLS_RUN_ON_LOOP_PER_PASS;
        // No call kept yet: the standby starts unwatching, whatever origin System.nanoTime() has.
        this.lastRunOnLoopNanos = System.nanoTime() - watchQuietNanos - 1;
        this.runOnLoopIntervalNanos = watchQuietNanos;
    }

    /** @return true on the loop's leader, or before any crew thread ran (the one thread driving doWork() in tests) */
    boolean inLoop() {
        return !started || leader == Thread.currentThread();
    }

    /** @return the thread leading the loop; null while the loop changes hands */
    Thread leader() {
        return leader;
    }

    /** @return whether a crew thread stands by, so the leader may keep a call for itself (leader; no lock) */
    boolean hasStandby() {
        return threadsStandingBy != 0;
    }

    /**
     * runOnLoop() - the crew's part of {@link CompletionLoop#runOnLoop}: keep {@code task} in {@code kept}
     * unless the pass already kept a call and the standby does not watch,
     * {@value #MAX_CALLS_RUN_ON_LOOP_PER_PASS} were kept, or the calls kept lately ran
     * longer than {@link #BATCH_SHARE_OF_SLICE} allows. Leader only, inside a pass.
     *
     * @param now the loop's clock
     * @return true when kept
     */
    boolean runOnLoop(CallsRunOnLoop kept, Runnable task, Executor elsewhere, long now) {
        assert inLoop() : "runOnLoop() off the loop's leader";
        if (kept.count > 0 && (!standbyWatching || kept.count == MAX_CALLS_RUN_ON_LOOP_PER_PASS
                || keptCallNanos > batchedCallLimitNanos)) {
            return false;
        }
        if (kept.count == 0) {
            long interval = Math.min(now - lastRunOnLoopNanos, watchQuietNanos);
            runOnLoopIntervalNanos += (interval - runOnLoopIntervalNanos) >> 3;
            lastRunOnLoopNanos = now;
        }
        kept.add(task, elsewhere);
        return true;
    }

    /**
     * run() - one crew thread of the loop, until the transport is closed: stand by until the loop
     * is free, lead it until a pass kept a call for this thread (or the loop closed), hand it over,
     * run the call, and stand by again.
     */
    void run() {
        started = true;
        CallsRunOnLoop kept = new CallsRunOnLoop();
        boolean leading = takeLeadership(kept);
        while (leading) {
            sendToWorkers(kept); // what a takeover found stranded behind a blocked call
            boolean keptCalls = lead(kept);
            if (keptCalls && stepAside(kept)) {
                runCallsOnLoop(kept);
                leading = stepBackIn() || takeLeadership(kept);
            } else {
                handOverLeadership();
                if (keptCalls) {
                    // Nobody watches this thread (the standby stopped watching as the pass
                    // ended): only the first call runs here, so a call that blocks holds no
                    // other call behind it.
                    Runnable first = kept.claim();
                    sendToWorkers(kept);
                    runCallOnLoop(first);
                }
                leading = takeLeadership(kept);
            }
        }
    }

    /**
     * runCallsOnLoop() - the calls this thread kept, in order, each unless a standby that took over
     * claimed it first; each one's run time goes into {@link #keptCallNanos}.
     */
    private void runCallsOnLoop(CallsRunOnLoop kept) {
        Runnable call;
        while ((call = kept.claim()) != null) {
            long started = System.nanoTime();
            runCallOnLoop(call);
            long took = System.nanoTime() - started;
            keptCallNanos += (took - keptCallNanos) >> 3;
        }
    }

    /**
     * sendToWorkers() - hands the kept calls not yet claimed to where their offer said (the
     * workers). With nothing left to claim it does nothing.
     */
    private void sendToWorkers(CallsRunOnLoop kept) {
        int from = kept.claimRest();
        for (int i = from; i < kept.count; i++) {
            Runnable call = kept.calls[i];
            Executor elsewhere = kept.elsewhere[i];
            kept.calls[i] = null;
            kept.elsewhere[i] = null;
            counters.increment(Counter.KEPT_CALLS_SENT_TO_WORKERS);
            try {
                elsewhere.execute(call);
            } catch (Throwable e) {
                counters.increment(Counter.HANDLER_ERRORS);
                LOG.error("A call kept by RDMA completion loop {} could not be handed to the workers", index, e);
            }
        }
    }

    /**
     * stepAside() - the lazy hand-over: when the standby watches (calls were kept lately), the
     * leader leaves the loop to run the call it kept without waking the standby, and takes the
     * loop back after the call, unless the call outran callTimeSliceMicros and the standby took
     * it over. A lone call then costs no wake-up of the crew at all, and on a machine with few
     * CPUs the standby does not take a CPU from the client the reply wakes. Meanwhile nobody
     * polls: the loop's other connections wait at most about two time slices.
     *
     * @return true when stepped aside; false: hand over now (the standby sleeps untimed, or it is off)
     */
    private boolean stepAside(CallsRunOnLoop kept) {
        if (callTimeSliceNanos == 0) {
            return false;
        }
        crew.lock();
        try {
            if (!standbyWatching || loop.isClosed()) {
                return false;
            }
            loopCounters.addOwned(Counter.CALLS_RUN_WITHOUT_HAND_OVER, kept.count);
            leader = null;
            long at = System.nanoTime();
            steppedAsideAt = at != 0 ? at : 1;
            callsSteppedAside = kept;
            return true;
        } finally {
            crew.unlock();
        }
    }

    /** @return true when this thread leads again after its call; false when the standby took over (or the loop closed) */
    private boolean stepBackIn() {
        crew.lock();
        try {
            if (leader != null || steppedAsideAt == 0 || loop.isClosed()) {
                return false;
            }
            steppedAsideAt = 0;
            callsSteppedAside = null;
            leader = Thread.currentThread();
            return true;
        } finally {
            crew.unlock();
        }
    }

    /**
     * @param own this thread's kept calls, all run or handed on: on a takeover it receives the
     *        calls the blocked leader had not begun, for {@link #sendToWorkers}
     * @return true once this thread leads the loop; false when the loop closed while it stood by
     */
    boolean takeLeadership(CallsRunOnLoop own) {
        crew.lock();
        try {
            // Standing by from the first wait to the last: a watching standby's checks between
            // its timed waits must not look to the leader like a busy standby (a call it would
            // then hand to a worker). A count, not a flag: the other crew thread may be leaving
            // its own stand-by (taking the loop back) while this one waits.
            threadsStandingBy++;
            try {
                while (!loop.isClosed() && !loopIsFree(own)) {
                    long timeout = watchTimeout();
                    standbyWatching = timeout > 0;
                    try {
                        if (timeout > 0) {
                            leadershipFree.awaitNanos(timeout);
                        } else {
                            leadershipFree.await();
                        }
                    } catch (InterruptedException e) {
                        loop.abandonOnInterrupt();
                        leadershipFree.signalAll();
                    } finally {
                        standbyWatching = false;
                    }
                }
            } finally {
                threadsStandingBy--;
            }
            if (loop.isClosed()) {
                return false;
            }
            leader = Thread.currentThread();
            return true;
        } finally {
            crew.unlock();
        }
    }

    /**
     * @param own the standby's kept calls, all run or handed on
     * @return whether a standby may lead now (under {@link #crew}): the leader handed the loop
     *         over, or it stepped aside for a call that has run longer than callTimeSliceMicros
     *         (then the standby takes the loop over, and the leader stands by after its call;
     *         the calls it kept and has not begun move to {@code own}, as the leader may stay
     *         blocked for long)
     */
    private boolean loopIsFree(CallsRunOnLoop own) {
        if (leader != null) {
            return false;
        }
        if (steppedAsideAt == 0) {
            return true;
        }
        if (System.nanoTime() - steppedAsideAt < callTimeSliceNanos) {
            return false;
        }
        steppedAsideAt = 0;
        if (callsSteppedAside != null) {
            callsSteppedAside.moveUnclaimedTo(own);
            callsSteppedAside = null;
        }
        counters.increment(Counter.LOOP_TAKEOVERS);
        return true;
    }

    /**
     * @return how long the standby may wait before it checks on a leader that stepped aside
     *         (under {@link #crew}); 0: wait until woken, as no call was kept for
     *         {@value #WATCH_QUIET_SLICES} time slices (an idle loop's crew costs no
     *         CPU), or calls are kept less than twice per slice ({@link #runOnLoopIntervalNanos})
     */
    private long watchTimeout() {
        if (callTimeSliceNanos == 0) {
            return 0;
        }
        long t = System.nanoTime();
        if (steppedAsideAt != 0) {
            return Math.max(1, steppedAsideAt + callTimeSliceNanos - t);
        }
        boolean keptOftenLately = t - lastRunOnLoopNanos < watchQuietNanos && runOnLoopIntervalNanos < callTimeSliceNanos / 2;
        return keptOftenLately ? callTimeSliceNanos : 0;
    }

    private void handOverLeadership() {
        crew.lock();
        try {
            leader = null;
            if (loop.isClosed()) {
                leadershipFree.signalAll();
            } else {
                leadershipFree.signal();
            }
        } finally {
            crew.unlock();
        }
    }

    /**
     * runCallOnLoop() - a call kept by {@link CompletionLoop#runOnLoop}, on the thread that received it;
     * nothing escapes to end the thread, not even an {@link Error}: a crew thread lost would leave
     * the loop without its standby, and the call's resources with nobody to release them. (The
     * task is a call's serve, which answers or drops its call itself; this is the last guard.) A
     * VirtualMachineError is not rethrown either: the JVM's own state is no worse for this thread
     * going on, and the next allocation that fails reports it again where it happens.
     */
    private void runCallOnLoop(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            counters.increment(Counter.HANDLER_ERRORS);
            LOG.error("A call run on RDMA completion loop {}'s thread failed", index, e);
        }
    }

    /**
     * lead() - the passes of the loop on the leader: work while there is work, then sleep on the
     * channel (or poll with backoff when there is none).
     *
     * @param kept this thread's kept calls, all run or handed on; a pass that keeps calls fills it
     * @return true when a pass kept calls for this thread ({@link CompletionLoop#runOnLoop}); false once the loop closed
     */
    private boolean lead(CallsRunOnLoop kept) {
        int idle = 0;
        boolean awaitNextCall = nextCallExpected;
        nextCallExpected = false;
        kept.clear();
        loop.collectCallsIn(kept);
        while (true) {
            if (kept.count > 0) {
                loop.collectCallsIn(null);
                nextCallExpected = loop.callsOffered() == kept.count && nextCallSpin.enabled();
                return true;
            }
            if (loop.isClosed()) {
                loop.collectCallsIn(null);
                return false;
            }
            try {
                if (loop.doWork() > 0) {
                    idle = 0;
                    continue;
                }
                if (!loop.sleepsOnChannel()) {
                    idle = loop.pollingBackoff(idle);
                    continue;
                }
                if (awaitNextCall) {
                    awaitNextCall = false;
                    if (nextCallSpin.spin()) {
                        continue;
                    }
                }
                if (!loop.spinForWork()) {
                    loop.sleep();
                }
            } catch (InterruptedException e) {
                loop.abandonOnInterrupt();
            } catch (VerbsException | RuntimeException e) {
                loop.onFailure(e);
            }
        }
    }
}
