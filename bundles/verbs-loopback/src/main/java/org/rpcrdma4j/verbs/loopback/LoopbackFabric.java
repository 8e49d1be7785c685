package org.rpcrdma4j.verbs.loopback;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;

import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * An in-JVM RDMA fabric: one device, a key table, the queue pairs and listeners of every
 * connection manager opened on it, and the engine that executes posted work.
 *
 * <p>{@link FabricMode#DETERMINISTIC}: nothing executes until the test calls {@link #step()}
 * (one send-queue work request, or one RNR retry, per step, queue pairs served round-robin, one
 * tick of the completion-delay clock) or {@link #runUntilIdle()}. Connection management is
 * synchronous in both modes: its events are queued at once.
 * {@link FabricMode#THREADED}: a daemon thread, started with the first queue pair, executes work
 * as it is posted.
 *
 * <p>Threading: every method is safe from any thread; all state of the fabric and of the objects
 * created on it is guarded by one lock ({@link FabricLock}: a waiter spins about a microsecond
 * before it parks, so one side's post and the other side's poll rarely cost a futex wait and
 * wake). In threaded mode a completion thread SHOULD use the
 * poll / arm / await loop of {@link org.rpcrdma4j.verbs.CompletionQueue}: spinning on poll contends
 * for that lock with the fabric thread (measured: about 100 times slower on two loaded cores). Ownership: the creator owns the fabric and MUST
 * {@link #close()} it; closing stops the thread and makes new resources fail with EBADF.
 */
public final class LoopbackFabric implements AutoCloseable {
    /** The capabilities of a default loopback device: an InfiniBand-like HCA with FRMR. */
    public static final DeviceCapabilities DEFAULT_CAPABILITIES =
            new DeviceCapabilities(TransportType.INFINIBAND, 16, 16, 16, 256, 16384, 65536, 16, 16, true, true, 64 << 20);

    private static final int MAX_STEPS_UNTIL_IDLE = 10_000_000;
    private static final int THREAD_BATCH = 64;
    private static final long ADDRESS_BASE = 0x7f00_0000_0000L;
    private static final int PAGE = 4096;

    final FabricLock lock = new FabricLock();
    final KeyTable keys = new KeyTable();
    final LoopbackFaults faults = new LoopbackFaults(this);
    private final Condition workAvailable = lock.newCondition();
    private final FabricMode mode;
    private final long rnrTimerNanos;
    /** Whether connecting exchanges RNR retry counts as the InfiniBand CM does. */
    final boolean rnrRetryFromConnectRequest;
    private final LoopbackDevice device;
    private final SendExecutor executor;
    private final LoopbackProvider provider;
    private final List<LoopbackQueuePair> queuePairs = new ArrayList<>();
    private final List<LoopbackCompletionQueue> completionQueues = new ArrayList<>();
    private final Map<InetSocketAddress, LoopbackListeningEndpoint> listeners = new HashMap<>();
    private long tick;
    private int roundRobin;
    private long nextAddress = ADDRESS_BASE;
    private int nextQueuePairNumber = 0x100;
    private int nextPort = 40000;
    private boolean timedWaitNeeded;
    private boolean closed;
    private Thread thread;
    private ReadRequestSink lastReadRequestSink;

    private LoopbackFabric(Builder builder) {
        this.rnrRetryFromConnectRequest = builder.rnrRetryFromConnectRequest;
        this.mode = builder.mode;
        this.rnrTimerNanos = builder.rnrTimer.toNanos();
        this.device = new LoopbackDevice(this, builder.deviceName, builder.capabilities);
        this.executor = new SendExecutor(this, Math.max(builder.capabilities.maxSendSge(), builder.capabilities.maxReceiveSge()));
        this.provider = new LoopbackProvider(this, false);
    }

    /** @return a deterministic fabric with the default capabilities */
    public static LoopbackFabric deterministic() {
        return builder().mode(FabricMode.DETERMINISTIC).build();
    }

    /** @return a threaded fabric with the default capabilities */
    public static LoopbackFabric threaded() {
        return builder().mode(FabricMode.THREADED).build();
    }

    /** @return a builder (deterministic, default capabilities, 100 µs RNR timer) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the provider view of this fabric (its single device, its connection managers) */
    public VerbsProvider provider() {
        return provider;
    }

    /** @return the fabric's device */
    public VerbsDevice device() {
        return device;
    }

    /** @return the mode */
    public FabricMode mode() {
        return mode;
    }

    /** @return the fault injector */
    public LoopbackFaults faults() {
        return faults;
    }

    /** @return the number of ticks so far */
    public long ticks() {
        lock.lock();
        try {
            return tick;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Leak check for tests: memory regions and fast-registration regions not yet deregistered or
     * closed, over every domain of this fabric.
     *
     * @return the number of live registrations
     */
    public int registrationCount() {
        lock.lock();
        try {
            return keys.inUse();
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of queue pairs not yet destroyed (leak check for tests) */
    public int queuePairCount() {
        lock.lock();
        try {
            return queuePairs.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of completion queues not yet closed (leak check for tests) */
    public int completionQueueCount() {
        lock.lock();
        try {
            return completionQueues.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The high-water mark of RDMA READs a queue pair had posted and not yet executed: tests of an
     * initiator compare it with the ORD it must honour (hardware does not fail an excess, it only
     * throttles, so the loopback observes instead of failing).
     *
     * @param queuePair a queue pair of this fabric
     * @return the most READs in flight at once so far
     */
    public int maxReadsInFlight(QueuePair queuePair) {
        lock.lock();
        try {
            return ((LoopbackQueuePair) queuePair).maxReadsInFlight();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the responder of the most recent RDMA READ learnt of the requester's memory, on an
     * iWARP device: an RDMAP Read Request carries the Data Sink STag and Tagged Offset to the
     * peer (RFC 5040, section 4.4), where InfiniBand and RoCE keep the sink local. A hostile peer
     * may aim RDMA WRITEs at that STag for as long as it grants remote write; tests use this to
     * show which sink keys a strategy exposes and for how long.
     *
     * @return the sink of the last READ executed on this fabric, or empty when the device is not
     *         iWARP or no READ ran yet
     */
    public Optional<ReadRequestSink> lastReadRequestSink() {
        lock.lock();
        try {
            return Optional.ofNullable(lastReadRequestSink);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: an iWARP READ named this sink on the wire. */
    void readRequestSeen(int stag, long taggedOffset, int length) {
        lastReadRequestSink = new ReadRequestSink(stag, taggedOffset, length);
    }

    /**
     * The sink part of an iWARP RDMA Read Request, as its responder sees it.
     *
     * @param stag the Data Sink STag (the requester's lkey, valid as an rkey on iWARP)
     * @param taggedOffset the Data Sink Tagged Offset (the sink's address)
     * @param length the RDMA Read Message Size
     */
    public record ReadRequestSink(int stag, long taggedOffset, int length) {
    }

    /**
     * Deterministic mode: advances the fabric by one tick and executes at most one send-queue work
     * request (or one RNR retry), taking queue pairs round-robin.
     *
     * @return whether anything happened or is still held back: a request executed or retried, or
     *         a delayed completion is not yet visible
     * @throws IllegalStateException in threaded mode
     */
    public boolean step() {
        checkDeterministic();
        lock.lock();
        try {
            return stepLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deterministic mode: steps until nothing is left to do (sends waiting for receives under an
     * infinite RNR retry count do not count as work).
     *
     * @return the number of productive steps
     * @throws IllegalStateException in threaded mode, or when the fabric does not settle
     */
    public int runUntilIdle() {
        checkDeterministic();
        lock.lock();
        try {
            int steps = 0;
            while (stepLocked()) {
                if (++steps > MAX_STEPS_UNTIL_IDLE) {
                    throw new IllegalStateException("the fabric did not settle within " + MAX_STEPS_UNTIL_IDLE + " steps");
                }
            }
            return steps;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the fabric thread; later resource creation fails with EBADF. Closing twice does nothing. */
    @Override
    public void close() {
        Thread running;
        lock.lock();
        try {
            closed = true;
            running = thread;
            workAvailable.signalAll();
        } finally {
            lock.unlock();
        }
        if (running != null && running != Thread.currentThread()) {
            try {
                running.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- package-private, under the lock unless stated ----

    DeviceCapabilities capabilities() {
        return device.capabilities();
    }

    long tick() {
        return tick;
    }

    /** @return false once the fabric is closed (a snapshot for operators) */
    boolean isOpen() {
        lock.lock();
        try {
            return !closed;
        } finally {
            lock.unlock();
        }
    }

    void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("loopback fabric is closed", Errno.EBADF);
        }
    }

    long allocateAddressRange(int length) {
        long base = nextAddress;
        nextAddress += ((long) length + PAGE - 1) / PAGE * PAGE + PAGE;
        return base;
    }

    void addCompletionQueue(LoopbackCompletionQueue queue) {
        completionQueues.add(queue);
    }

    void removeCompletionQueue(LoopbackCompletionQueue queue) {
        completionQueues.remove(queue);
    }

    int nextQueuePairNumber() {
        return nextQueuePairNumber++;
    }

    void addQueuePair(LoopbackQueuePair queuePair) {
        queuePairs.add(queuePair);
        if (mode == FabricMode.THREADED && thread == null) {
            thread = new Thread(this::runFabricThread, "rpcrdma4j-loopback-fabric");
            thread.setDaemon(true);
            thread.start();
        }
    }

    void removeQueuePair(LoopbackQueuePair queuePair) {
        queuePairs.remove(queuePair);
    }

    /**
     * Threaded mode, under the fabric lock: execute what was just posted on the poster's thread, as
     * a NIC starts a doorbell's work at once, instead of waking the fabric thread for it (one
     * thread hand-off less per message). Stops at the first request that has to wait (a SEND
     * meeting RNR), which the fabric thread then retries; the semantics are those of
     * {@link SendExecutor}, whichever thread runs it.
     *
     * @return true when nothing is left for the fabric thread
     */
    boolean executeOnPost(LoopbackQueuePair queuePair) {
        if (mode != FabricMode.THREADED || faults.completionDelayTicks() > 0) {
            return false;
        }
        for (int i = 0; i < THREAD_BATCH && queuePair.hasPendingSend(); i++) {
            if (executor.executeHead(queuePair) != SendExecutor.EXECUTED) {
                return false;
            }
        }
        return !queuePair.hasPendingSend();
    }

    /** Something was posted or changed state: wake the fabric thread. */
    void workPosted() {
        if (mode == FabricMode.THREADED) {
            workAvailable.signal();
        }
    }

    /**
     * Whether a SEND waiting for a receive may use up an RNR retry now. Deterministic: every step.
     * Threaded: once per RNR timer period.
     */
    boolean rnrTimerExpired(SendSlot slot) {
        if (mode == FabricMode.DETERMINISTIC) {
            return true;
        }
        timedWaitNeeded = true;
        long now = System.nanoTime();
        if (slot.rnrNextAttemptNanos != 0 && now - slot.rnrNextAttemptNanos < 0) {
            return false;
        }
        slot.rnrNextAttemptNanos = now + rnrTimerNanos;
        return true;
    }

    LoopbackListeningEndpoint listenerAt(InetSocketAddress address) {
        LoopbackListeningEndpoint exact = listeners.get(address);
        if (exact != null) {
            return exact;
        }
        return listeners.get(new InetSocketAddress(wildcard(address.getAddress()), address.getPort()));
    }

    InetSocketAddress bind(InetSocketAddress requested, LoopbackListeningEndpoint endpoint) throws VerbsException {
        InetSocketAddress address = requested.getPort() != 0 ? requested : new InetSocketAddress(requested.getAddress(), allocatePort());
        if (listeners.containsKey(address)) {
            throw new VerbsException("address in use: " + address, Errno.EADDRINUSE);
        }
        listeners.put(address, endpoint);
        return address;
    }

    void unbind(InetSocketAddress address) {
        listeners.remove(address);
    }

    int allocatePort() {
        int port;
        do {
            port = nextPort++;
            if (nextPort > 65535) {
                nextPort = 40000;
            }
        } while (isBoundPort(port));
        return port;
    }

    private boolean isBoundPort(int port) {
        for (InetSocketAddress bound : listeners.keySet()) {
            if (bound.getPort() == port) {
                return true;
            }
        }
        return false;
    }

    private static InetAddress wildcard(InetAddress address) {
        try {
            return InetAddress.getByAddress(new byte[address.getAddress().length]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean stepLocked() {
        tick++;
        boolean heldBack = false;
        for (int i = 0; i < completionQueues.size(); i++) {
            heldBack |= completionQueues.get(i).onTick(tick);
        }
        if (heldBack) {
            timedWaitNeeded = true;
        }
        int n = queuePairs.size();
        for (int i = 0; i < n; i++) {
            int at = (roundRobin + i) % n;
            LoopbackQueuePair queuePair = queuePairs.get(at);
            if (queuePair.hasPendingSend() && executor.executeHead(queuePair) != SendExecutor.WAITING) {
                roundRobin = at + 1;
                return true;
            }
        }
        return heldBack && mode == FabricMode.DETERMINISTIC;
    }

    private void checkDeterministic() {
        if (mode != FabricMode.DETERMINISTIC) {
            throw new IllegalStateException("the fabric is threaded: it drives itself");
        }
    }

    private void runFabricThread() {
        lock.lock();
        try {
            while (!closed) {
                timedWaitNeeded = false;
                boolean progress = false;
                for (int i = 0; i < THREAD_BATCH && stepLocked(); i++) {
                    progress = true;
                }
                if (progress) {
                    lock.unlock();
                    Thread.yield();
                    lock.lock();
                } else if (timedWaitNeeded) {
                    workAvailable.awaitNanos(rnrTimerNanos);
                } else {
                    workAvailable.await();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Builds a {@link LoopbackFabric}. */
    public static final class Builder {
        private FabricMode mode = FabricMode.DETERMINISTIC;
        private DeviceCapabilities capabilities = DEFAULT_CAPABILITIES;
        private String deviceName = "loopback0";
        private Duration rnrTimer = Duration.ofNanos(100_000);
        private boolean rnrRetryFromConnectRequest;

        private Builder() {
        }

        /**
         * @param mode deterministic or threaded
         * @return this builder
         */
        public Builder mode(FabricMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param capabilities what the device reports and enforces (e.g. no fast registration, to
         *        behave like user-space verbs; iWARP, to require REMOTE_WRITE on READ sinks)
         * @return this builder
         */
        public Builder capabilities(DeviceCapabilities capabilities) {
            this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
            return this;
        }

        /**
         * @param name the device name
         * @return this builder
         */
        public Builder deviceName(String name) {
            this.deviceName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param timer threaded mode: the wait between two RNR retries
         * @return this builder
         */
        public Builder rnrTimer(Duration timer) {
            if (timer.isNegative() || timer.isZero()) {
                throw new IllegalArgumentException("rnrTimer must be positive: " + timer);
            }
            this.rnrTimer = timer;
            return this;
        }

        /**
         * @param value true to connect as the InfiniBand CM does: the RNR retry count of the
         *        connect request (the active side's queue pair) configures the passive side's
         *        queue pair, and the accepting side's count the active one's; a client can thus
         *        make the server retry RNR for ever. False (the default): each side keeps its own
         * @return this builder
         */
        public Builder rnrRetryFromConnectRequest(boolean value) {
            this.rnrRetryFromConnectRequest = value;
            return this;
        }

        /** @return the fabric */
        public LoopbackFabric build() {
            return new LoopbackFabric(this);
        }
    }
}
