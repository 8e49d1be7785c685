package org.rpcrdma4j.transport.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.transport.internal.connection.Counters;
import org.rpcrdma4j.transport.internal.connection.DeviceResources;
import org.rpcrdma4j.transport.internal.connection.PoolShare;
import org.rpcrdma4j.transport.internal.connection.QueuePairSizing;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CompletionLoop - one completion-processing loop of a transport (Netty's event loop, svcrdma's
 * completion context): it owns a share of the connections, their completion queues, and its own
 * per-device pools (receive decode state, READ sinks, reply staging), so nothing it touches on the
 * hot path is shared with another loop.
 *
 * <p>A pass ({@link #doWork()}) takes what other threads handed in (connect requests and
 * connection events from the acceptor; replies and released calls come through each connection's
 * own queues), then drives every connection. Run on its own thread ({@link #run()}), the loop
 * sleeps on its {@link CompletionChannel} when a pass found nothing: arm every queue, drain once
 * more to close the race, then await a completion or a wake-up. An idle loop uses no CPU, and the
 * first call after a pause wakes it at once; it wakes on its own once a second only while a stall
 * or close deadline runs, else every 10 s. With completionSpinMicros set, the loop first keeps
 * polling that long, so calls in quick succession are taken without a wake-up (a latency-for-CPU
 * trade, off by default). A provider without a completion channel falls back
 * to spinning, yielding and parking (up to 250 us).
 *
 * <p>Leader/followers (with {@code loopRunsCalls}, the default): the loop has a crew of two
 * threads. One leads: it runs the passes and sleeps on the channel. The other stands by. When a
 * pass that follows one that left no call to the workers (the loop has caught up: no backlog)
 * delivers calls and the standby is free, the leader keeps the first call for itself
 * ({@link #lend}), ends the pass, hands the loop to the standby and runs the call (decode,
 * program, reply) on its own thread, then stands by in turn. A call then costs one wake-up (the
 * completion's) instead of two (the loop's, then a worker's): an nfsd thread likewise takes the
 * request svcrdma queued and runs it, with no thread in between. A call that blocks (disk) holds
 * only its own thread: the other leads, and while neither stands by, calls go to the workers as
 * before, so the loop never stops polling. When the pass kept every call it delivered (a client
 * that waits for these replies before it sends again: one call at a time, or a batch), the next
 * leader polls for the next call for up to nextCallSpinMicros before it sleeps
 * ({@link #spinForNextCall}), adaptively.
 *
 * <p>The lazy hand-over ({@code callTimeSliceMicros}): while calls are kept, the standby waits
 * with a timeout (it watches), so the leader need not wake it: it steps aside ({@link #stepAside}),
 * runs the call and takes the loop back, and the standby takes the loop over only if the call
 * outruns its time slice. A lone call then costs no wake-up of the crew; once no call was kept for
 * {@value #WATCH_QUIET_SLICES} slices the standby sleeps untimed again, and the next kept call
 * wakes it as before. While the standby watches, the leader keeps every call of the pass (up to
 * {@value #MAX_CALLS_KEPT_PER_PASS}) and runs them one after another: a client with several calls
 * in flight sends them together, and each kept call saves a worker's wake-up. Only while calls
 * are short ({@link #BATCH_SHARE_OF_SLICE}): longer ones the workers run side by side. A call
 * that outruns its slice holds the ones behind it only until the standby takes the loop over: the
 * standby sends those to the workers ({@link KeptCalls}).
 *
 * <p>Threading: everything but {@link #handIn}, {@link #wakeup()} and the snapshot getters is
 * confined to the loop's leader (or the one thread driving {@link #doWork()} in tests); a new
 * leader takes the loop under the crew lock, which orders everything the previous one wrote.
 */
public final class CompletionLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionLoop.class);
    /** Longest sleep while a deadline runs (a connection with work outstanding, or closing). */
    static final long IDLE_AWAIT_MILLIS = 1000;
    /**
     * Longest sleep with no deadline running: every event the loop serves (a completion, a hand-in,
     * a released call, a strategy change, the close) wakes it, so this bound only limits how long
     * a thread interrupt (which a native wait does not see) goes unnoticed.
     */
    static final long QUIET_AWAIT_MILLIS = 10_000;
    private static final long MAX_POLLING_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(250);
    /**
     * The next-call spin's confidence at its highest. A hit adds one, a miss takes two: the loop
     * keeps spinning while at least about two spins in three find the call, and stops after
     * {@value} / 2 misses in a row.
     */
    public static final int NEXT_CALL_SCORE_MAX = 16;
    /**
     * With no confidence left, one pass in this many (a power of two) whose calls were all kept
     * still spins, to find out whether the client sped up.
     */
    public static final int NEXT_CALL_PROBE_INTERVAL = 16;
    /** A watching standby stops its timed checks once no call was kept for this many time slices. */
    public static final int WATCH_QUIET_SLICES = 20;
    /**
     * The most calls a leader keeps from one pass to run one after another (a client with
     * several calls in flight sends them together, and the pass that finds them saves a worker's
     * wake-up per call). More than one only while the standby watches, so a call that blocks
     * holds the ones behind it for at most about a time slice before the standby takes the loop
     * over and sends them to the workers.
     */
    public static final int MAX_CALLS_KEPT_PER_PASS = 16;
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

    private final int index;
    private final TransportEngine engine;
    /** This loop's own counts, written by its leader (in the transport's counters when read). */
    private final Counters loopCounters;
    private final TransportConfig config;
    private final CompletionChannel channel;
    private final HeaderDecoder decoder;
    private final WorkCompletion[] completions;
    private final CompletionQueue[] fired = new CompletionQueue[64];
    private final CopyOnWriteArrayList<ConnectionState> connections = new CopyOnWriteArrayList<>();
    private final List<DeviceResources> devices = new ArrayList<>();
    private final ConcurrentLinkedQueue<HandedEvent> handedIn = new ConcurrentLinkedQueue<>();
    /** False only while the loop may be asleep; a hand-in that flips it rings the channel. */
    private final AtomicBoolean awake = new AtomicBoolean(true);
    private int strategiesSeen = -1;
    private final long stallTimeoutNanos;
    private final long spinNanos;
    private final long nextCallSpinNanos;
    private final long callTimeSliceNanos;
    /** With no call kept for this long, a watching standby stops its timed checks and sleeps until woken. */
    private final long watchQuietNanos;
    /** The loop's clock, read once per pass. */
    private long now = System.nanoTime();
    private volatile boolean closed;
    private boolean failedBefore;

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
    /** Where the current pass keeps calls for its leader to run once the pass ends (the leader's own; leader only). */
    private KeptCalls keeping;
    /** The calls of the leader that stepped aside, for a standby that takes the loop over. Under {@link #crew}. */
    private KeptCalls keptAside;
    /**
     * The last pass left no call to the workers (leader only): it delivered none, or kept every
     * one it delivered, so a call now meets a loop with no backlog of calls. Only then does the
     * leader keep a call: once calls come faster than one thread runs them, passes hand calls to
     * the workers, and a leader that stopped polling to run one would leave its completions
     * waiting. (Send completions, reposts and returned contexts are no backlog: the pass that
     * takes a reply's send completion is often the one right before the client's next call.)
     */
    private boolean caughtUp;
    /**
     * When the leader stepped aside to run a call it kept without waking the standby
     * (System.nanoTime(), never 0), or 0. Under {@link #crew}.
     */
    private long steppedAsideAt;
    /**
     * The standby waits with a timeout, checking on a leader that stepped aside. Written under
     * {@link #crew}; {@link #lend} reads it without, to keep more than one call only while it holds.
     */
    private volatile boolean standbyWatching;
    /** When the leader last kept a call (System.nanoTime()); the standby watches while calls are kept. */
    private volatile long lastLendNanos;
    /**
     * Moving average (1/8) of the time between two kept calls (leader writes, standby reads). The
     * standby watches only while calls are kept at least twice per time slice: a watch costs a
     * timed wake-up per slice, and saves one wake-up per kept call, so below that rate it would
     * cost more than it saves (the lab's 4 KiB random reads over rxe keep about 700 calls a second).
     */
    private volatile long lendIntervalNanos;
    /**
     * Moving average (1/8) of how long a kept call ran, measured by the crew thread that ran it
     * (one at a time; the leader reads it): calls longer than {@link #batchedCallLimitNanos} are
     * not kept in batches.
     */
    private volatile long keptCallNanos;
    /** The longest call (moving average) kept in batches: see {@link #BATCH_SHARE_OF_SLICE}. */
    private final long batchedCallLimitNanos;
    /** Calls offered to {@link #lend} in the current pass (leader only). */
    private int callsOffered;
    /**
     * The pass that ended the last leadership kept every call it delivered: a client that sends
     * its next calls once it has these replies (one call at a time, or a batch in flight). Set by
     * the old leader, read by the new one (or itself, back from stepping aside); under {@link #crew}.
     */
    private boolean nextCallExpected;
    /**
     * Confidence in the next-call spin, 0..{@value #NEXT_CALL_SCORE_MAX}: up by one per hit, down
     * by two per miss (leader only).
     */
    private int nextCallScore = NEXT_CALL_SCORE_MAX;
    /** Passes with all calls kept seen while the confidence is 0, for the occasional probing spin (leader only). */
    private int nextCallProbes;

    /**
     * @param channel the channel the loop sleeps on and its queues report to; null to poll
     */
    CompletionLoop(int index, TransportEngine engine, CompletionChannel channel) {
        this.index = index;
        this.engine = engine;
        this.loopCounters = engine.counters().newWriter(this::inLoop);
        this.config = engine.config();
        this.channel = channel;
        this.decoder = new HeaderDecoder(config.limits(), HeaderDecoder.Role.RESPONDER);
        this.stallTimeoutNanos = TimeUnit.SECONDS.toNanos(config.stallTimeoutSeconds());
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(config.completionSpinMicros());
        this.nextCallSpinNanos = TimeUnit.MICROSECONDS.toNanos(config.nextCallSpinMicros());
        this.callTimeSliceNanos = TimeUnit.MICROSECONDS.toNanos(config.callTimeSliceMicros());
        this.watchQuietNanos = WATCH_QUIET_SLICES * callTimeSliceNanos;
        this.batchedCallLimitNanos = callTimeSliceNanos / BATCH_SHARE_OF_SLICE / MAX_CALLS_KEPT_PER_PASS;
        // No call kept yet: the standby starts unwatching, whatever origin System.nanoTime() has.
        this.lastLendNanos = System.nanoTime() - watchQuietNanos - 1;
        this.lendIntervalNanos = watchQuietNanos;
        this.completions = new WorkCompletion[config.completionBatch()];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
    }

    int index() {
        return index;
    }

    /** @return the threads this loop runs on ({@link #run()} once on each) */
    int crewSize() {
        return config.threadsPerLoop();
    }

    public TransportConfig config() {
        return config;
    }

    /** @return the transport's counters (a connection's are a writer of them) */
    public Counters counters() {
        return engine.counters();
    }

    /** @return the loop's clock (System.nanoTime() at the start of the current pass) */
    public long now() {
        return now;
    }

    public long stallTimeoutNanos() {
        return stallTimeoutNanos;
    }

    public HeaderDecoder decoder() {
        return decoder;
    }

    public RpcCallHandler handler() {
        return engine.handler();
    }

    public RegistrationStrategy activeStrategy() {
        return engine.strategies().active();
    }

    public AtomicInteger repliesInTransit() {
        return engine.repliesInTransit();
    }

    public LargeReplyBuffers largeReplyBuffers() {
        return engine.largeReplyBuffers();
    }

    /** @return how many connections this loop serves (any thread; for spreading new ones) */
    int connectionCount() {
        return connections.size();
    }

    void addConnectionsTo(List<RdmaConnection> out) {
        out.addAll(connections);
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * createCompletionQueue() - a queue for a connection of this loop: on the loop's channel, or a
     * plain one when the loop polls.
     */
    public CompletionQueue createCompletionQueue(VerbsDevice device, int capacity) throws VerbsException {
        return channel != null ? channel.createCompletionQueue(device, capacity) : device.createCompletionQueue(capacity);
    }

    /**
     * handIn() - give the loop a connection-manager event to act on (any thread). The loop copies
     * nothing: the caller passes what it copied out of the provider's event.
     */
    void handIn(HandedEvent event) {
        handedIn.add(event);
        wakeup();
    }

    /** wakeup() - another thread queued work for this loop: end its sleep if it sleeps. Any thread. */
    public void wakeup() {
        if (!awake.get() && awake.compareAndSet(false, true)) {
            if (channel != null) {
                channel.wakeup();
            } else {
                Thread t = leader;
                if (t != null) {
                    LockSupport.unpark(t); // none: the next leader's first pass takes the work
                }
            }
        }
    }

    /** @return true on the loop's leader, or before any crew thread ran (the one thread driving doWork() in tests) */
    public boolean inLoop() {
        return !started || leader == Thread.currentThread();
    }

    /**
     * lend() - offer a delivered call's work to the leader: it runs {@code task} itself once the
     * current pass ends, after handing the loop to the standby (or stepping aside), and after the
     * calls it kept before in this pass. Inside a pass; off the leader it refuses.
     *
     * @param elsewhere where the task goes if, kept, it cannot run here in time: it waits behind
     *        a call of the same pass that outran its time slice (the standby then takes the loop
     *        over and sends it there), or the standby stopped watching before the pass ended. It
     *        must take the task (handle a refusal itself).
     * @return true when taken (it runs exactly once, here or {@code elsewhere}, even if the loop
     *         closes meanwhile); false when the loop had not caught up before this pass (under
     *         load the leader keeps polling), the standby is busy, the pass already kept a call
     *         and the standby does not watch, {@value #MAX_CALLS_KEPT_PER_PASS} were kept or the
     *         calls kept lately ran longer than {@link #BATCH_SHARE_OF_SLICE} allows, the loop has no
     *         crew (tests driving doWork()), or the caller is not the leader: run it elsewhere
     */
    public boolean lend(Runnable task, Executor elsewhere) {
        if (!inLoop()) {
            return false; // first: off the leader, loop state is not even read
        }
        callsOffered++;
        KeptCalls kept = keeping;
        if (kept == null || !caughtUp || threadsStandingBy == 0 || closed) {
            return false;
        }
        if (kept.count > 0 && (!standbyWatching || kept.count == MAX_CALLS_KEPT_PER_PASS
                || keptCallNanos > batchedCallLimitNanos)) {
            return false;
        }
        if (kept.count == 0) {
            long interval = Math.min(now - lastLendNanos, watchQuietNanos);
            lendIntervalNanos += (interval - lendIntervalNanos) >> 3;
            lastLendNanos = now;
        }
        kept.add(task, elsewhere);
        loopCounters.incrementOwned(Counter.CALLS_RUN_ON_LOOP);
        return true;
    }

    /**
     * doWork() - one pass: hand-ins, strategy changes, every connection, idle pools, the close.
     *
     * @return the work done; 0 means idle
     */
    int doWork() {
        assert inLoop() : "CompletionLoop.doWork() off its thread";
        if (closed) {
            return 0;
        }
        now = System.nanoTime();
        callsOffered = 0;
        int work = takeHandedIn();
        int version = engine.strategies().version();
        if (version != strategiesSeen) {
            strategiesSeen = version;
            List<RegistrationStrategy> registered = engine.strategies().registered();
            for (int i = 0; i < devices.size(); i++) {
                devices.get(i).retireMissing(registered);
            }
        }
        boolean closing = engine.isCloseRequested();
        for (int i = 0; i < connections.size(); i++) {
            ConnectionState c = connections.get(i);
            if (closing) {
                c.beginClose(false);
            }
            work += c.doWork(completions);
            if (c.isRemovable()) {
                c.retireCounters();
                connections.remove(i--);
                engine.onConnectionGone();
                work++;
            }
        }
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).closeIdlePools();
        }
        if (closing && connections.isEmpty() && handedIn.isEmpty()) {
            finishClose();
        }
        caughtUp = callsOffered == 0 || (keeping != null && keeping.count == callsOffered);
        return work;
    }

    /**
     * run() - one crew thread of the loop, until the transport is closed: stand by until the loop
     * is free, lead it until a pass kept a call for this thread (or the loop closed), hand it over,
     * run the call, and stand by again. The transport runs this on {@link #crewSize()} threads.
     */
    @Override
    public void run() {
        started = true;
        KeptCalls kept = new KeptCalls();
        try {
            boolean leading = takeLeadership(kept);
            while (leading) {
                sendToWorkers(kept); // what a takeover found stranded behind a blocked call
                boolean keptCalls = lead(kept);
                if (keptCalls && stepAside(kept)) {
                    runKept(kept);
                    leading = stepBackIn() || takeLeadership(kept);
                } else {
                    handOverLeadership();
                    if (keptCalls) {
                        // Nobody watches this thread (the standby stopped watching as the pass
                        // ended): only the first call runs here, so a call that blocks holds no
                        // other call behind it.
                        Runnable first = kept.claim();
                        sendToWorkers(kept);
                        runLent(first);
                    }
                    leading = takeLeadership(kept);
                }
            }
        } finally {
            engine.onLoopEnded();
        }
    }

    /**
     * runKept() - the calls this thread kept, in order, each unless a standby that took over
     * claimed it first; each one's run time goes into {@link #keptCallNanos}.
     */
    private void runKept(KeptCalls kept) {
        Runnable call;
        while ((call = kept.claim()) != null) {
            long started = System.nanoTime();
            runLent(call);
            long took = System.nanoTime() - started;
            keptCallNanos += (took - keptCallNanos) >> 3;
        }
    }

    /**
     * sendToWorkers() - hands the kept calls not yet claimed to where their offer said (the
     * workers). With nothing left to claim it does nothing.
     */
    private void sendToWorkers(KeptCalls kept) {
        int from = kept.claimRest();
        for (int i = from; i < kept.count; i++) {
            Runnable call = kept.calls[i];
            Executor elsewhere = kept.elsewhere[i];
            kept.calls[i] = null;
            kept.elsewhere[i] = null;
            engine.counters().increment(Counter.KEPT_CALLS_SENT_TO_WORKERS);
            try {
                elsewhere.execute(call);
            } catch (Throwable e) {
                engine.counters().increment(Counter.HANDLER_ERRORS);
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
    private boolean stepAside(KeptCalls kept) {
        if (callTimeSliceNanos == 0) {
            return false;
        }
        crew.lock();
        try {
            if (!standbyWatching || closed) {
                return false;
            }
            loopCounters.addOwned(Counter.CALLS_RUN_WITHOUT_HAND_OVER, kept.count);
            leader = null;
            long at = System.nanoTime();
            steppedAsideAt = at != 0 ? at : 1;
            keptAside = kept;
            return true;
        } finally {
            crew.unlock();
        }
    }

    /** @return true when this thread leads again after its call; false when the standby took over (or the loop closed) */
    private boolean stepBackIn() {
        crew.lock();
        try {
            if (leader != null || steppedAsideAt == 0 || closed) {
                return false;
            }
            steppedAsideAt = 0;
            keptAside = null;
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
    private boolean takeLeadership(KeptCalls own) {
        crew.lock();
        try {
            // Standing by from the first wait to the last: a watching standby's checks between
            // its timed waits must not look to the leader like a busy standby (a call it would
            // then hand to a worker). A count, not a flag: the other crew thread may be leaving
            // its own stand-by (taking the loop back) while this one waits.
            threadsStandingBy++;
            try {
                while (!closed && !loopIsFree(own)) {
                    long timeout = watchTimeout();
                    standbyWatching = timeout > 0;
                    try {
                        if (timeout > 0) {
                            leadershipFree.awaitNanos(timeout);
                        } else {
                            leadershipFree.await();
                        }
                    } catch (InterruptedException e) {
                        abandonOnInterrupt();
                        leadershipFree.signalAll();
                    } finally {
                        standbyWatching = false;
                    }
                }
            } finally {
                threadsStandingBy--;
            }
            if (closed) {
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
    private boolean loopIsFree(KeptCalls own) {
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
        if (keptAside != null) {
            keptAside.moveUnclaimedTo(own);
            keptAside = null;
        }
        engine.counters().increment(Counter.LOOP_TAKEOVERS);
        return true;
    }

    /**
     * @return how long the standby may wait before it checks on a leader that stepped aside
     *         (under {@link #crew}); 0: wait until woken, as no call was kept for
     *         {@value #WATCH_QUIET_SLICES} time slices (an idle loop's crew costs no CPU), or calls
     *         are kept less than twice per slice ({@link #lendIntervalNanos})
     */
    private long watchTimeout() {
        if (callTimeSliceNanos == 0) {
            return 0;
        }
        long t = System.nanoTime();
        if (steppedAsideAt != 0) {
            return Math.max(1, steppedAsideAt + callTimeSliceNanos - t);
        }
        boolean keptOftenLately = t - lastLendNanos < watchQuietNanos && lendIntervalNanos < callTimeSliceNanos / 2;
        return keptOftenLately ? callTimeSliceNanos : 0;
    }

    private void handOverLeadership() {
        crew.lock();
        try {
            leader = null;
            if (closed) {
                leadershipFree.signalAll();
            } else {
                leadershipFree.signal();
            }
        } finally {
            crew.unlock();
        }
    }

    /** abandonOnInterrupt() - a crew thread was interrupted: the loop ends, its connections left as they are. */
    private void abandonOnInterrupt() {
        LOG.warn("RDMA completion loop {} was interrupted; its {} connections are abandoned", index, connections.size());
        closed = true;
        Thread.currentThread().interrupt();
    }

    /**
     * runLent() - a call kept by {@link #lend}, on the thread that received it; nothing escapes to
     * end the thread, not even an {@link Error}: a crew thread lost would leave the loop without
     * its standby, and the call's resources with nobody to release them. (The task is a call's
     * serve, which answers or drops its call itself; this is the last guard.) A
     * VirtualMachineError is not rethrown either: the JVM's own state is no worse for this thread
     * going on, and the next allocation that fails reports it again where it happens.
     */
    private void runLent(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            engine.counters().increment(Counter.HANDLER_ERRORS);
            LOG.error("A call run on RDMA completion loop {}'s thread failed", index, e);
        }
    }

    /**
     * lead() - the passes of the loop on the leader: work while there is work, then sleep on the
     * channel (or poll with backoff when there is none).
     *
     * @param kept this thread's kept calls, all run or handed on; a pass that keeps calls fills it
     * @return true when a pass kept calls for this thread ({@link #lend}); false once the loop closed
     */
    private boolean lead(KeptCalls kept) {
        int idle = 0;
        boolean awaitNextCall = nextCallExpected;
        nextCallExpected = false;
        kept.clear();
        keeping = kept;
        while (true) {
            if (kept.count > 0) {
                keeping = null;
                nextCallExpected = callsOffered == kept.count && nextCallSpinNanos > 0;
                return true;
            }
            if (closed) {
                keeping = null;
                return false;
            }
            try {
                if (doWork() > 0) {
                    idle = 0;
                    continue;
                }
                if (channel == null) {
                    idle = pollingBackoff(idle);
                    continue;
                }
                if (awaitNextCall) {
                    awaitNextCall = false;
                    if (spinForNextCall()) {
                        continue;
                    }
                }
                if (spinNanos > 0 && spinForWork()) {
                    loopCounters.incrementOwned(Counter.LOOP_SPIN_HITS);
                    continue;
                }
                armCompletionQueues();
                awake.set(false);
                if (doWork() > 0 || closed) {
                    awake.set(true);
                    continue;
                }
                loopCounters.incrementOwned(Counter.LOOP_SLEEPS);
                int n = channel.await(fired, hasDeadline() ? IDLE_AWAIT_MILLIS : QUIET_AWAIT_MILLIS,
                        TimeUnit.MILLISECONDS);
                awake.set(true);
                onFired(n);
            } catch (InterruptedException e) {
                abandonOnInterrupt();
            } catch (VerbsException | RuntimeException e) {
                awake.set(true);
                if (failedBefore) {
                    LOG.error("RDMA completion loop {} failed again while closing; its {} connections are abandoned",
                            index, connections.size(), e);
                    closed = true;
                } else {
                    LOG.error("RDMA completion loop {} failed; closing the transport", index, e);
                    failedBefore = true;
                    engine.close();
                }
            }
        }
    }

    /** @return whether a connection of this loop needs the loop to wake on its own (see ConnectionState.hasDeadline) */
    private boolean hasDeadline() {
        for (int i = 0; i < connections.size(); i++) {
            if (connections.get(i).hasDeadline()) {
                return true;
            }
        }
        return engine.isCloseRequested();
    }

    /**
     * Keeps polling for up to completionSpinMicros (Aeron's busy-spin idle strategy, bounded): a
     * call that arrives meanwhile is taken without the completion channel's wake-up, which costs
     * an interrupt, an unpark and, between CPUs, tens of microseconds. An idle loop pays this
     * once per idle gap, then sleeps.
     *
     * @return true when a pass found work
     */
    private boolean spinForWork() {
        long deadline = System.nanoTime() + spinNanos;
        do {
            Thread.onSpinWait();
            if (doWork() > 0) {
                return true;
            }
        } while (!closed && now - deadline < 0);
        return false;
    }

    /**
     * spinForNextCall() - the next leader after a pass whose calls were all kept: their client
     * waits for those replies and sends its next call right after, typically within tens of
     * microseconds, while a sleeping loop would take a wake-up (an interrupt and a thread switch,
     * tens of microseconds between CPUs) to see it. So poll for up to nextCallSpinMicros for a
     * call. Adaptive, as a spinning lock is: every spin that finds a call raises the confidence
     * by one, every one that does not lowers it by two, and at 0 only one such pass in
     * {@value #NEXT_CALL_PROBE_INTERVAL} spins (to notice when the client speeds up again). The
     * all-kept rule keeps the spin off the CPUs under load, when calls go to the workers, which
     * need the cores.
     *
     * @return true when a call came within the spin
     */
    private boolean spinForNextCall() {
        if (nextCallScore == 0 && (++nextCallProbes & (NEXT_CALL_PROBE_INTERVAL - 1)) != 0) {
            return false;
        }
        long deadline = now + nextCallSpinNanos;
        do {
            // Yield, not just spin: the client this loop waits for may be runnable on this very
            // CPU (two CPUs, three threads), and a plain spin would keep it off until the spin ends.
            Thread.yield();
            doWork();
            if (callsOffered > 0) {
                nextCallScore = Math.min(NEXT_CALL_SCORE_MAX, nextCallScore + 1);
                loopCounters.incrementOwned(Counter.NEXT_CALL_SPIN_HITS);
                return true;
            }
        } while (!closed && now - deadline < 0);
        nextCallScore = Math.max(0, nextCallScore - 2);
        loopCounters.incrementOwned(Counter.NEXT_CALL_SPIN_MISSES);
        return false;
    }

    private int pollingBackoff(int idle) {
        awake.set(false);
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 96) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(MAX_POLLING_PARK_NANOS, 1000L << Math.min(idle - 96, 14)));
        }
        awake.set(true);
        return idle < Integer.MAX_VALUE ? idle + 1 : idle;
    }

    private void armCompletionQueues() throws VerbsException {
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).armCompletionQueue();
        }
    }

    private void onFired(int n) {
        for (int i = 0; i < n; i++) {
            CompletionQueue cq = fired[i];
            fired[i] = null;
            for (int j = 0; j < connections.size(); j++) {
                if (connections.get(j).onCompletionQueueFired(cq)) {
                    break;
                }
            }
        }
    }

    private int takeHandedIn() {
        int n = 0;
        HandedEvent event;
        while ((event = handedIn.poll()) != null) {
            n++;
            if (event.type == ConnectionEventType.CONNECT_REQUEST) {
                onConnectRequest(event);
            } else if (event.state != null) {
                event.state.onConnectionEvent(event.type);
            }
        }
        return n;
    }

    private void onConnectRequest(HandedEvent event) {
        Connection connection = event.connection;
        if (engine.isCloseRequested()) {
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: the transport is stopping", connection.remoteAddress());
            TransportEngine.rejectAndClose(connection);
            return;
        }
        ConnectionState state;
        QueuePairSizing sizing;
        try {
            DeviceResources device = deviceFor(connection.device());
            sizing = QueuePairSizing.of(config, connection.device().capabilities());
            state = new ConnectionState(this, connection, device, event.peer);
        } catch (VerbsException | RuntimeException e) {
            engine.counters().increment(Counter.ACCEPT_FAILURES);
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: its resources could not be set up: {}",
                    connection.remoteAddress(), e.toString());
            TransportEngine.rejectAndClose(connection);
            return;
        }
        try {
            state.open(sizing);
        } catch (VerbsException | RuntimeException e) {
            engine.counters().increment(Counter.ACCEPT_FAILURES);
            engine.onConnectionGone();
            LOG.warn("RPC-over-RDMA connect request from {} rejected: accepting it failed: {}", connection.remoteAddress(),
                    e.toString());
            return;
        }
        connections.add(state);
        engine.counters().increment(Counter.CONNECTIONS_ACCEPTED);
    }

    private DeviceResources deviceFor(VerbsDevice device) throws VerbsException {
        for (int i = 0; i < devices.size(); i++) {
            if (devices.get(i).device() == device) {
                return devices.get(i);
            }
        }
        // Each loop has its own pools of the configured size (per loop and device), shared by its
        // connections through per-connection shares (PoolShare).
        boolean auto = config.readSinkCount() == 0;
        SinkPoolParameters parameters = new SinkPoolParameters(auto ? 1 : config.readSinkCount(), config.readSinkLength(),
                config.sinkPageSize(), QueuePairSizing.readSgeLimit(device.capabilities()));
        DeviceResources resources = new DeviceResources(device, device.allocateProtectionDomain(), parameters, auto,
                config.replyStagingBytes());
        devices.add(resources);
        return resources;
    }

    /** addUsage() - the loop's part of {@link TransportEngine#usage()}; loop thread or while stopped. */
    void addUsage(UsageTally usage) {
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).addUsage(usage);
        }
        for (DeviceResources d : devices) {
            usage.outstandingSinks += d.outstandingSinks();
            usage.sinkRegistrations += d.liveRegistrations();
            usage.registeredBytes += d.registeredBytes();
            usage.replyStagingBytes += d.replyStaging().allocated();
        }
        usage.connections += connections.size();
    }

    private void finishClose() {
        boolean all = true;
        for (DeviceResources d : devices) {
            all &= d.close();
        }
        if (!all) {
            return;
        }
        devices.clear();
        if (channel != null) {
            try {
                channel.close();
            } catch (VerbsException e) {
                engine.counters().increment(Counter.RELEASE_FAILURES);
            }
        }
        closed = true;
    }

    /** closeChannelQuietly() - the transport failed to open: release the channel (no queue was made on it). */
    void closeChannelQuietly() {
        if (channel != null) {
            try {
                channel.close();
            } catch (VerbsException e) {
                engine.counters().increment(Counter.RELEASE_FAILURES);
            }
        }
    }

    /**
     * KeptCalls - the calls one crew thread kept from a pass ({@link #lend}), which it runs one
     * after another once the pass ends. Each crew thread has its own. Every call is claimed
     * exactly once: by the thread that kept it, or by a standby that took the loop over from it
     * ({@link #moveUnclaimedTo}, under the crew lock, which also orders the kept calls written
     * before the leader stepped aside), never both.
     */
    static final class KeptCalls {
        final Runnable[] calls = new Runnable[MAX_CALLS_KEPT_PER_PASS];
        final Executor[] elsewhere = new Executor[MAX_CALLS_KEPT_PER_PASS];
        /** Calls kept; written by the owner while it leads, read by a standby under the crew lock. */
        int count;
        /** The next call not yet claimed. */
        final AtomicInteger next = new AtomicInteger();

        /** Owner, as it begins to lead: every call of the last batch was claimed. */
        void clear() {
            count = 0;
            next.set(0);
        }

        void add(Runnable call, Executor where) {
            calls[count] = call;
            elsewhere[count] = where;
            count++;
        }

        /** @return the next kept call, now this thread's to run; null when none is left */
        Runnable claim() {
            int i = next.getAndIncrement();
            if (i >= count) {
                return null;
            }
            Runnable call = calls[i];
            calls[i] = null;
            elsewhere[i] = null;
            return call;
        }

        /** @return the first of the calls (up to count) that are now the caller's: all not claimed before */
        int claimRest() {
            return next.getAndSet(count);
        }

        /** Under the crew lock: the calls not yet claimed become {@code to}'s (which has none). */
        void moveUnclaimedTo(KeptCalls to) {
            to.clear();
            for (int i = claimRest(); i < count; i++) {
                to.add(calls[i], elsewhere[i]);
                calls[i] = null;
                elsewhere[i] = null;
            }
        }
    }

    /** What the acceptor hands a loop: a connect request (with the peer's private data) or an event. */
    static final class HandedEvent {
        final ConnectionEventType type;
        final Connection connection;
        final ConnectionState state;
        final ConnectionPrivateData peer;

        HandedEvent(ConnectionEventType type, Connection connection, ConnectionState state, ByteBuffer privateData) {
            this.type = type;
            this.connection = connection;
            this.state = state;
            this.peer = privateData == null ? null
                    : ConnectionPrivateData.decode(privateData, privateData.position(), privateData.remaining()).orElse(null);
        }
    }
}
