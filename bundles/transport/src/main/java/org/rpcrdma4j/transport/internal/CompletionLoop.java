package org.rpcrdma4j.transport.internal;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.codec.HeaderDecoder;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.common.Counters;
import org.rpcrdma4j.transport.internal.common.UsageTally;
import org.rpcrdma4j.transport.internal.connection.ConnectionLoop;
import org.rpcrdma4j.transport.internal.connection.ConnectionState;
import org.rpcrdma4j.transport.internal.sendto.LargeReplyBuffers;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.CompletionChannel;
import org.rpcrdma4j.verbs.CompletionQueue;
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
 * <p>Leader/followers (with {@code loopRunsCalls}, the default): the loop's {@link LoopCrew} of
 * two threads takes turns leading it, and a leader that caught up keeps calls to run itself
 * ({@link #runOnLoop}).
 *
 * <p>Threading: everything but {@link #handIn}, {@link #wakeup()} and the snapshot getters is
 * confined to the loop's leader (or the one thread driving {@link #doWork()} in tests); a new
 * leader takes the loop under the crew lock, which orders everything the previous one wrote.
 */
public final class CompletionLoop implements Runnable, ConnectionLoop {
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
    private final LoopDevices devices;
    private final LoopAcceptor acceptor;
    private final ConcurrentLinkedQueue<HandedEvent> handedIn = new ConcurrentLinkedQueue<>();
    /** False only while the loop may be asleep; a hand-in that flips it rings the channel. */
    private final AtomicBoolean awake = new AtomicBoolean(true);
    private int strategiesSeen = -1;
    private final long stallTimeoutNanos;
    private final long spinNanos;
    /** The threads that lead this loop in turn. */
    private final LoopCrew crew;
    /** The loop's clock, read once per pass. */
    private long now = System.nanoTime();
    private volatile boolean closed;
    private boolean failedBefore;

    /** Where the current pass keeps calls for its leader to run once the pass ends (the leader's own; leader only). */
    private CallsRunOnLoop callsToRun;
    /**
     * The last pass left no call to the workers (leader only): it delivered none, or kept every
     * one it delivered, so a call now meets a loop with no backlog of calls. Only then does the
     * leader keep a call: once calls come faster than one thread runs them, passes hand calls to
     * the workers, and a leader that stopped polling to run one would leave its completions
     * waiting. (Send completions, reposts and returned contexts are no backlog: the pass that
     * takes a reply's send completion is often the one right before the client's next call.)
     */
    private boolean caughtUp;
    /** Calls offered to {@link #runOnLoop} in the current pass (leader only). */
    private int callsOffered;
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
        this.devices = new LoopDevices(config);
        this.acceptor = new LoopAcceptor(this, engine, devices);
        this.crew = new LoopCrew(this, index, engine.counters(), loopCounters, config);
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

    @Override
    public TransportConfig config() {
        return config;
    }

    /** @return the transport's counters (a connection's are a writer of them) */
    @Override
    public Counters counters() {
        return engine.counters();
    }

    /** @return the loop's clock (System.nanoTime() at the start of the current pass) */
    @Override
    public long now() {
        return now;
    }

    @Override
    public long stallTimeoutNanos() {
        return stallTimeoutNanos;
    }

    @Override
    public HeaderDecoder decoder() {
        return decoder;
    }

    @Override
    public RpcCallHandler handler() {
        return engine.handler();
    }

    @Override
    public RegistrationStrategy activeStrategy() {
        return engine.strategies().active();
    }

    @Override
    public AtomicInteger repliesInTransit() {
        return engine.repliesInTransit();
    }

    @Override
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
    @Override
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
    @Override
    public void wakeup() {
        if (!awake.get() && awake.compareAndSet(false, true)) {
            if (channel != null) {
                channel.wakeup();
            } else {
                Thread t = crew.leader();
                if (t != null) {
                    LockSupport.unpark(t); // none: the next leader's first pass takes the work
                }
            }
        }
    }

    /** @return true on the loop's leader, or before any crew thread ran (the one thread driving doWork() in tests) */
    @Override
    public boolean inLoop() {
        return crew.inLoop();
    }

    /**
     * runOnLoop() - offer a delivered call's work to the leader: it runs {@code task} itself once the
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
     *         and the standby does not watch, {@value LoopCrew#MAX_CALLS_RUN_ON_LOOP_PER_PASS} were kept or the
     *         calls kept lately ran longer than {@link LoopCrew#BATCH_SHARE_OF_SLICE} allows, the loop has no
     *         crew (tests driving doWork()), or the caller is not the leader: run it elsewhere
     */
    @Override
    public boolean runOnLoop(Runnable task, Executor elsewhere) {
        if (!inLoop()) {
            return false; // first: off the leader, loop state is not even read
        }
        callsOffered++;
        CallsRunOnLoop kept = callsToRun;
        if (kept == null || !caughtUp || !crew.hasStandby() || closed) {
            return false;
        }
        if (!crew.runOnLoop(kept, task, elsewhere, now)) {
            return false;
        }
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
            devices.retireMissing(engine.strategies().registered());
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
        devices.closeIdlePools();
        if (closing && connections.isEmpty() && handedIn.isEmpty()) {
            finishClose();
        }
        caughtUp = callsOffered == 0 || (callsToRun != null && callsToRun.count == callsOffered);
        return work;
    }

    /**
     * run() - one crew thread of the loop, until the transport is closed ({@link LoopCrew#run}).
     * The transport runs this on {@link #crewSize()} threads.
     */
    @Override
    public void run() {
        try {
            crew.run();
        } finally {
            engine.onLoopEnded();
        }
    }

    /** collectCallsIn() - where the passes of the thread beginning to lead keep calls; null when it stops (leader only). */
    void collectCallsIn(CallsRunOnLoop kept) {
        assert inLoop() : "collectCallsIn() off the loop's leader";
        callsToRun = kept;
    }

    /** @return calls offered to {@link #runOnLoop} in the current pass (leader only) */
    int callsOffered() {
        assert inLoop() : "callsOffered() off the loop's leader";
        return callsOffered;
    }

    /** @return false when the loop has no completion channel and polls with backoff instead */
    boolean sleepsOnChannel() {
        return channel != null;
    }

    /**
     * sleep() - a pass found nothing: arm every queue, drain once more to close the race, then
     * await a completion or a wake-up (leader only).
     */
    void sleep() throws InterruptedException, VerbsException {
        assert inLoop() : "sleep() off the loop's leader";
        armCompletionQueues();
        awake.set(false);
        if (doWork() > 0 || closed) {
            awake.set(true);
            return;
        }
        loopCounters.incrementOwned(Counter.LOOP_SLEEPS);
        int n = channel.await(fired, hasDeadline() ? IDLE_AWAIT_MILLIS : QUIET_AWAIT_MILLIS, TimeUnit.MILLISECONDS);
        awake.set(true);
        onFired(n);
    }

    /** onFailure() - a pass failed: the first failure closes the transport, a second abandons the loop's connections. */
    void onFailure(Exception e) {
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

    /** abandonOnInterrupt() - a crew thread was interrupted: the loop ends, its connections left as they are. */
    void abandonOnInterrupt() {
        LOG.warn("RDMA completion loop {} was interrupted; its {} connections are abandoned", index, connections.size());
        closed = true;
        Thread.currentThread().interrupt();
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
     * once per idle gap, then sleeps. Leader only; with completionSpinMicros 0 it does not spin.
     *
     * @return true when a pass found work
     */
    boolean spinForWork() {
        assert inLoop() : "spinForWork() off the loop's leader";
        if (spinNanos == 0) {
            return false;
        }
        long deadline = System.nanoTime() + spinNanos;
        do {
            Thread.onSpinWait();
            if (doWork() > 0) {
                loopCounters.incrementOwned(Counter.LOOP_SPIN_HITS);
                return true;
            }
        } while (!closed && now - deadline < 0);
        return false;
    }

    int pollingBackoff(int idle) {
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
                ConnectionState state = acceptor.accept(event);
                if (state != null) {
                    connections.add(state);
                    engine.counters().increment(Counter.CONNECTIONS_ACCEPTED);
                }
            } else if (event.state != null) {
                event.state.onConnectionEvent(event.type);
            }
        }
        return n;
    }

    /** addUsage() - the loop's part of {@link TransportEngine#usage()}; loop thread or while stopped. */
    void addUsage(UsageTally usage) {
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).addUsage(usage);
        }
        devices.addUsage(usage);
        usage.connections += connections.size();
    }

    private void finishClose() {
        if (!devices.close()) {
            return;
        }
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
}
