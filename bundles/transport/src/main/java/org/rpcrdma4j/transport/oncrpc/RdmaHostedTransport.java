package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RdmaHostedTransport - an RPC-over-RDMA transport as the host server serves it: it listens
 * (port 20049 by default, RFC 8267), runs the completion loop on its own thread, turns calls into
 * oncrpc4j calls for the host's programs and sends their replies back over RDMA, with a reply
 * cache for retransmissions.
 *
 * <p>Registration strategies and upper-layer bindings come and go at any time, before or while
 * serving ({@link #addStrategy}, {@link #addBinding}): OSGi services in Karaf, or what
 * {@link org.rpcrdma4j.transport.spi.RegistrationStrategies#load()} and
 * {@link org.rpcrdma4j.transport.spi.UpperLayerBindings#load()} find on the module path.
 *
 * <p>Stopping is orderly: new calls are dropped (the client retransmits them elsewhere or
 * later), calls already running get up to {@value #STOP_GRACE_SECONDS} s to send their replies,
 * then every connection is disconnected, flushed and released, and the completion thread ends.
 *
 * <p>Threading: every method is safe from any thread; the completion loop is this object's own
 * thread. Lifecycle: {@link #start} once, {@link #stop} once (idempotent), as the host does.
 */
public final class RdmaHostedTransport implements HostedTransport, RdmaTransportControl {
    /** The port RFC 8267 assigns to NFS over RPC-over-RDMA. */
    public static final int DEFAULT_PORT = 20049;
    /** Default number of calls the reply cache remembers. */
    public static final int DEFAULT_REPLY_CACHE_ENTRIES = 1024;
    /** Default longest reply the reply cache keeps. */
    public static final int DEFAULT_REPLY_CACHE_MAX_REPLY_BYTES = 8192;
    /** How long running calls may take to answer once stopping begins. */
    public static final int STOP_GRACE_SECONDS = 5;
    private static final long CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long stopping waits for the back-channel thread (a callback or timeout it runs) to end. */
    private static final long BACKCHANNEL_END_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final Logger LOG = LoggerFactory.getLogger(RdmaHostedTransport.class);

    private final VerbsProvider provider;
    private final InetSocketAddress address;
    private final TransportConfig config;
    private final int replyCacheEntries;
    private final int replyCacheMaxReplyBytes;
    private final CopyOnWriteArrayList<RegistrationStrategy> strategies = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<UpperLayerBinding> bindings = new CopyOnWriteArrayList<>();
    private volatile String preferredStrategy;
    private volatile RdmaTransport transport;
    private volatile CallBridge bridge;
    private volatile boolean loopsEnded;
    private boolean stopped;

    private RdmaHostedTransport(Builder b) {
        this.provider = b.provider;
        this.address = b.address;
        this.config = b.config;
        this.replyCacheEntries = b.replyCacheEntries;
        this.replyCacheMaxReplyBytes = b.replyCacheMaxReplyBytes;
        this.preferredStrategy = b.preferredStrategy;
    }

    /**
     * builder() - settings for a transport over {@code provider}.
     *
     * @param provider the verbs provider (loopback, DiSNI)
     * @return a builder holding the defaults: every address, port 20049, {@link TransportConfig#DEFAULTS}
     */
    public static Builder builder(VerbsProvider provider) {
        return new Builder(provider);
    }

    /** addStrategy() - offer a registration strategy (the preferred one, else the first, is active). */
    public void addStrategy(RegistrationStrategy strategy) {
        strategies.addIfAbsent(strategy);
        RdmaTransport t = transport;
        if (t != null) {
            t.addStrategy(strategy);
            if (strategy.name().equals(preferredStrategy)) {
                t.activateStrategy(strategy.name());
            }
        }
    }

    /** removeStrategy() - withdraw a strategy; READs it started finish, then its pools close. */
    public void removeStrategy(RegistrationStrategy strategy) {
        strategies.remove(strategy);
        RdmaTransport t = transport;
        if (t != null) {
            t.removeStrategy(strategy);
        }
    }

    /** addBinding() - offer an upper-layer binding (DDP items of one program's replies). */
    public void addBinding(UpperLayerBinding binding) {
        bindings.addIfAbsent(binding);
    }

    /** removeBinding() - withdraw a binding; that program's replies go inline or by reply chunk. */
    public void removeBinding(UpperLayerBinding binding) {
        bindings.remove(binding);
    }

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public void start(RpcCallDispatcher dispatcher) throws IOException {
        synchronized (this) {
            if (transport != null || stopped) {
                throw new IllegalStateException("RDMA transport on " + address + " was already started");
            }
            CallBridge b = new CallBridge(dispatcher, new ReplyCache(replyCacheEntries, replyCacheMaxReplyBytes), bindings,
                    "rpcrdma4j-backchannel-" + address.getPort());
            RdmaTransport t;
            try {
                t = RdmaTransport.open(provider, address, config, b);
            } catch (VerbsException | RuntimeException e) {
                endBackchannel(b);
                throw new IOException("RDMA transport cannot listen on " + address + " with verbs provider '"
                        + provider.name() + "': " + e.getMessage(), e);
            }
            for (RegistrationStrategy s : strategies) {
                t.addStrategy(s);
            }
            String preferred = preferredStrategy;
            if (preferred != null && t.strategies().stream().anyMatch(s -> s.name().equals(preferred))) {
                t.activateStrategy(preferred);
            }
            bridge = b;
            transport = t;
            t.start(threadFactory("rpcrdma4j-rdma-" + t.localAddress().getPort() + "-", config.completionLoops(),
                    config.threadsPerLoop()));
        }
        LOG.info("RPC-over-RDMA transport listening on {} (verbs provider '{}', {})", localAddress(), provider.name(), config);
    }

    /**
     * The completion loops' threads first, loop by loop (prefix + "loop-N", or "loop-N-C" for the
     * C-th of a loop's crew), then the acceptor's (prefix + "acceptor"); daemons.
     */
    private static ThreadFactory threadFactory(String prefix, int loops, int crew) {
        AtomicInteger made = new AtomicInteger();
        return runnable -> {
            int n = made.getAndIncrement();
            String name = n >= loops * crew ? prefix + "acceptor"
                    : crew == 1 ? prefix + "loop-" + n : prefix + "loop-" + n / crew + "-" + n % crew;
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void stop() {
        RdmaTransport t;
        CallBridge b;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            t = transport;
            b = bridge;
        }
        if (t == null) {
            loopsEnded = true;
            return;
        }
        b.refuseNewCalls();
        long graceEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_GRACE_SECONDS);
        while ((b.inFlight() > 0 || t.repliesInTransit() > 0) && System.nanoTime() < graceEnd) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (b.inFlight() > 0) {
            LOG.warn("Stopping the RDMA transport on {}: {} calls still running after {} s; their replies will be dropped",
                    t.localAddress(), b.inFlight(), STOP_GRACE_SECONDS);
        }
        t.close();
        boolean closed = false;
        try {
            closed = t.awaitClosed(CLOSE_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!closed) {
            LOG.error("The RDMA transport on {} did not finish closing within {} s (connections: {})", t.localAddress(),
                    TimeUnit.NANOSECONDS.toSeconds(CLOSE_TIMEOUT_NANOS), t.connections());
        }
        loopsEnded = endBackchannel(b) && closed;
        transport = null;
        LOG.info("RPC-over-RDMA transport stopped ({})", t.statistics());
    }

    /**
     * endBackchannel() - stop the bridge's back-channel thread and wait up to
     * {@link #BACKCHANNEL_END_NANOS} for it to end (logged when it does not).
     *
     * @return true when it ended (or was never started)
     */
    private boolean endBackchannel(CallBridge b) {
        boolean ended = false;
        try {
            ended = b.shutdown(System.nanoTime() + BACKCHANNEL_END_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!ended) {
            LOG.error("The back-channel thread of the RDMA transport on {} did not end within {} s", address,
                    TimeUnit.NANOSECONDS.toSeconds(BACKCHANNEL_END_NANOS));
        }
        return ended;
    }

    /** @return true once stopped and every completion loop, the acceptor and the back-channel thread have ended */
    public synchronized boolean isStopped() {
        return stopped && loopsEnded;
    }

    @Override
    public InetSocketAddress localAddress() {
        RdmaTransport t = transport;
        return t == null ? null : t.localAddress();
    }

    @Override
    public String providerName() {
        return provider.name();
    }

    @Override
    public TransportConfig config() {
        return config;
    }

    @Override
    public TransportStatistics statistics() {
        RdmaTransport t = transport;
        return t == null ? null : t.statistics();
    }

    @Override
    public List<RdmaConnection> connections() {
        RdmaTransport t = transport;
        return t == null ? List.of() : t.connections();
    }

    @Override
    public List<String> strategies() {
        List<String> names = new ArrayList<>();
        String active = activeStrategy();
        if (active != null) {
            names.add(active);
        }
        for (RegistrationStrategy s : strategies) {
            if (!s.name().equals(active)) {
                names.add(s.name());
            }
        }
        return names;
    }

    @Override
    public String activeStrategy() {
        RdmaTransport t = transport;
        if (t != null) {
            RegistrationStrategy active = t.activeStrategy();
            return active == null ? null : active.name();
        }
        String preferred = preferredStrategy;
        for (RegistrationStrategy s : strategies) {
            if (s.name().equals(preferred)) {
                return preferred;
            }
        }
        return strategies.isEmpty() ? null : strategies.get(0).name();
    }

    @Override
    public void activateStrategy(String name) {
        Objects.requireNonNull(name, "name");
        if (strategies.stream().noneMatch(s -> s.name().equals(name))) {
            throw new IllegalArgumentException("no registration strategy named '" + name + "'; registered: "
                    + strategies.stream().map(RegistrationStrategy::name).toList());
        }
        preferredStrategy = name;
        RdmaTransport t = transport;
        if (t != null) {
            t.activateStrategy(name);
        }
    }

    /**
     * callsInFlight() - calls handed to programs whose reply is not sent (nor the call dropped)
     * yet: what {@link #stop()} waits for, up to {@value #STOP_GRACE_SECONDS} s. A call that
     * stays counted with nothing running it is a leak.
     *
     * @return the count; 0 when not started
     */
    public int callsInFlight() {
        CallBridge b = bridge;
        return b == null ? 0 : b.inFlight();
    }

    /** @return retransmitted calls answered from the reply cache */
    public long retransmitsAnswered() {
        CallBridge b = bridge;
        return b == null ? 0 : b.retransmitsAnswered();
    }

    /** @return retransmitted calls dropped because their first copy was still running */
    public long retransmitsDropped() {
        CallBridge b = bridge;
        return b == null ? 0 : b.retransmitsDropped();
    }

    /**
     * checkReplyCacheEntries() - check the reply cache size setting.
     *
     * @return {@code value}, within 0..1,000,000
     * @throws IllegalArgumentException naming the setting otherwise
     */
    public static int checkReplyCacheEntries(int value) {
        if (value < 0 || value > 1_000_000) {
            throw new IllegalArgumentException("replyCacheEntries must be within 0..1000000: " + value);
        }
        return value;
    }

    /**
     * checkReplyCacheMaxReplyBytes() - check the longest cached reply setting.
     *
     * @return {@code value}, within 0..1 MiB
     * @throws IllegalArgumentException naming the setting otherwise
     */
    public static int checkReplyCacheMaxReplyBytes(int value) {
        if (value < 0 || value > 1 << 20) {
            throw new IllegalArgumentException("replyCacheMaxReplyBytes must be within 0..1048576: " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "RdmaHostedTransport[" + address + ", provider=" + provider.name() + "]";
    }

    /** Builder - the settings; each setter checks its value and names the setting when it refuses. */
    public static final class Builder {
        private final VerbsProvider provider;
        private InetSocketAddress address = new InetSocketAddress(DEFAULT_PORT);
        private TransportConfig config = TransportConfig.DEFAULTS;
        private int replyCacheEntries = DEFAULT_REPLY_CACHE_ENTRIES;
        private int replyCacheMaxReplyBytes = DEFAULT_REPLY_CACHE_MAX_REPLY_BYTES;
        private String preferredStrategy;

        private Builder(VerbsProvider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
        }

        /** @param value the address to listen on (port 0: any free port) @return this builder */
        public Builder address(InetSocketAddress value) {
            address = Objects.requireNonNull(value, "address");
            return this;
        }

        /** @param value the transport settings @return this builder */
        public Builder config(TransportConfig value) {
            config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** @param value calls the reply cache remembers, 0..1,000,000 (0 disables it) @return this builder */
        public Builder replyCacheEntries(int value) {
            replyCacheEntries = checkReplyCacheEntries(value);
            return this;
        }

        /** @param value longest reply kept, 0..1 MiB @return this builder */
        public Builder replyCacheMaxReplyBytes(int value) {
            replyCacheMaxReplyBytes = checkReplyCacheMaxReplyBytes(value);
            return this;
        }

        /** @param name the strategy to make active whenever it is registered (null: the first) @return this builder */
        public Builder preferredStrategy(String name) {
            preferredStrategy = name == null || name.isBlank() ? null : name.trim();
            return this;
        }

        /** @return the transport, not started */
        public RdmaHostedTransport build() {
            return new RdmaHostedTransport(this);
        }
    }
}
