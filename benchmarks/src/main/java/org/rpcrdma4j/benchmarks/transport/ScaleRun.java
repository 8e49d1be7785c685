package org.rpcrdma4j.benchmarks.transport;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * ScaleRun - many concurrent connections on the loopback provider, each keeping calls in flight,
 * served by the transport's completion loops (issue #13, "Scale"): per client p50/p99 latency and
 * the worst client's p99, calls/s in total, the registered memory per connection (the transport's
 * {@link RdmaTransport#usage() usage}) and heap per connection (MemoryMXBean after GC), for each
 * number of completion loops asked for.
 *
 * <p>The server is the transport's own API with an echo handler that answers on the completion
 * loop (no worker hand-off: what is measured is the loops). The clients are the Java RPC-over-RDMA
 * client without progress threads, driven round-robin by a few driver threads in the same JVM
 * (so latency includes the driver's turn around its clients, and heap per connection counts both
 * sides of each connection). Every client sends {@code warmup + calls} calls, keeping
 * {@code inFlight} outstanding; a client that does not get all its answers within the run's
 * deadline is reported as starved and the run fails.
 *
 * <p>Usage: {@code ScaleRun [--connections 1000] [--in-flight 4] [--calls 100] [--warmup 20]
 * [--bytes 128] [--loops 1,2] [--drivers 1] [--deadline-seconds 600] [--json FILE] [--every-client]}
 */
public final class ScaleRun {
    private static final long IDLE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** The settings of one run. */
    public record Settings(int connections, int inFlight, int calls, int warmup, int bytes, int[] loops, int drivers,
                           int deadlineSeconds) {
        /** @return the defaults: 1,000 connections, 4 in flight, 100 measured calls each, loops 1, 2 (and the CPUs when more) */
        public static Settings defaults() {
            int cpus = Runtime.getRuntime().availableProcessors();
            int[] loops = cpus > 2 ? new int[] {1, 2, Math.min(cpus, TransportConfig.MAX_COMPLETION_LOOPS)} : new int[] {1, 2};
            return new Settings(1000, 4, 100, 20, 128, loops, 1, 600);
        }
    }

    /** One client's outcome. */
    public record ClientResult(int index, int answered, int failed, long p50Nanos, long p99Nanos, long maxNanos) {
    }

    /** The outcome of one number of loops. */
    public record LoopResult(int loops, int connections, int callsPerClient, long elapsedNanos, long measuredCalls,
                             double callsPerSecond, List<ClientResult> clients, long registeredBytes,
                             long heapBeforeBytes, long heapWithConnectionsBytes, int starvedClients, int failedCalls,
                             long serverReadSinkStarvation, long serverStagingStarvation, long serverShareWaits,
                             long serverReceiveStarvation, long serverSendBufferStarvation, long callsDelivered) {
        /** @return registered bytes per connection */
        public long registeredBytesPerConnection() {
            return registeredBytes / Math.max(1, connections);
        }

        /** @return heap bytes per connection (both sides, after GC) */
        public long heapBytesPerConnection() {
            return Math.max(0, heapWithConnectionsBytes - heapBeforeBytes) / Math.max(1, connections);
        }

        /** @return the highest p99 of any client */
        public long worstP99Nanos() {
            long worst = 0;
            for (ClientResult c : clients) {
                worst = Math.max(worst, c.p99Nanos());
            }
            return worst;
        }

        /** @return the given percentile (0..100) of the clients' p99s */
        public long p99Percentile(double percentile) {
            long[] p99 = new long[clients.size()];
            for (int i = 0; i < p99.length; i++) {
                p99[i] = clients.get(i).p99Nanos();
            }
            return percentile(p99, p99.length, percentile);
        }

        /** @return the given percentile of the clients' p50s */
        public long p50Percentile(double percentile) {
            long[] p50 = new long[clients.size()];
            for (int i = 0; i < p50.length; i++) {
                p50[i] = clients.get(i).p50Nanos();
            }
            return percentile(p50, p50.length, percentile);
        }
    }

    private ScaleRun() {
    }

    public static void main(String[] args) throws Exception {
        // One INFO line per connection opened and closed would drown the results.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        Settings d = Settings.defaults();
        int connections = d.connections();
        int inFlight = d.inFlight();
        int calls = d.calls();
        int warmup = d.warmup();
        int bytes = d.bytes();
        int[] loops = d.loops();
        int drivers = d.drivers();
        int deadline = d.deadlineSeconds();
        String json = null;
        boolean everyClient = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--in-flight" -> inFlight = Integer.parseInt(args[++i]);
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--bytes" -> bytes = Integer.parseInt(args[++i]);
                case "--loops" -> loops = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--drivers" -> drivers = Integer.parseInt(args[++i]);
                case "--deadline-seconds" -> deadline = Integer.parseInt(args[++i]);
                case "--json" -> json = args[++i];
                case "--every-client" -> everyClient = true;
                default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment of ScaleRun)");
            }
        }
        Settings settings = new Settings(connections, inFlight, calls, warmup, bytes, loops, drivers, deadline);
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "ScaleRun: %d connections x %d in flight, %d calls each (+%d warm-up), %d-byte echo, "
                        + "loops %s, %d driver threads, %d CPUs, JVM %s, max heap %d MiB%n",
                connections, inFlight, calls, warmup, bytes, Arrays.toString(loops), drivers,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        List<LoopResult> results = new ArrayList<>();
        boolean ok = true;
        for (int l : loops) {
            LoopResult r = run(settings, l);
            results.add(r);
            print(out, r, everyClient);
            ok &= r.starvedClients() == 0 && r.failedCalls() == 0;
        }
        if (json != null) {
            Files.writeString(Path.of(json), toJson(settings, results), StandardCharsets.UTF_8);
            out.println("JSON: " + json);
        }
        if (!ok) {
            out.println("FAILED: some client was not served");
            System.exit(1);
        }
    }

    /**
     * run() - one run with {@code loops} completion loops.
     *
     * @return its outcome
     */
    public static LoopResult run(Settings s, int loops) throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = heapAfterGc(memory);
        LoopbackFabric fabric = LoopbackFabric.threaded();
        TransportConfig config = TransportConfig.builder().completionLoops(loops)
                .maxConnections(Math.max(s.connections() + 8, TransportConfig.DEFAULTS.maxConnections())).build();
        RdmaTransport transport = RdmaTransport.open(fabric.provider(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), config, new EchoHandler());
        transport.addStrategy(new LkeyRegistrationStrategy());
        AtomicInteger threads = new AtomicInteger();
        transport.start(r -> {
            Thread t = new Thread(r, "scale-loop-" + threads.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        Client[] clients = new Client[s.connections()];
        try {
            ClientConfig clientConfig = ClientConfig.builder().maxCredits(Math.max(2, s.inFlight()))
                    .progressThread(false).build();
            for (int i = 0; i < clients.length; i++) {
                clients[i] = new Client(i, RpcRdmaClient.connect(fabric.provider(), transport.localAddress(), clientConfig),
                        s);
            }
            long start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(s.deadlineSeconds());
            Thread[] drivers = new Thread[Math.max(1, Math.min(s.drivers(), clients.length))];
            Throwable[] failure = new Throwable[1];
            for (int d = 0; d < drivers.length; d++) {
                int first = d;
                int stride = drivers.length;
                drivers[d] = new Thread(() -> {
                    try {
                        drive(clients, first, stride, deadline);
                    } catch (Throwable t) {
                        synchronized (failure) {
                            failure[0] = t;
                        }
                    }
                }, "scale-driver-" + d);
                drivers[d].start();
            }
            for (Thread t : drivers) {
                t.join();
            }
            if (failure[0] != null) {
                throw new IllegalStateException("a driver failed", failure[0]);
            }
            long measuredStart = Long.MAX_VALUE;
            long end = 0;
            for (Client c : clients) {
                measuredStart = Math.min(measuredStart, c.measuredStartNanos);
                end = Math.max(end, c.lastAnswerNanos);
            }
            // Every call is answered: the loops are idle, so the transport's snapshot is quiescent.
            ResourceUsage usage = transport.usage();
            long heapWith = heapAfterGc(memory);
            List<ClientResult> results = new ArrayList<>();
            long measured = 0;
            int starved = 0;
            int failed = 0;
            for (Client c : clients) {
                ClientResult r = c.result();
                results.add(r);
                measured += Math.min(r.answered(), s.calls());
                failed += r.failed();
                if (r.answered() < s.calls() + s.warmup()) {
                    starved++;
                }
            }
            long elapsed = Math.max(1, end - measuredStart);
            TransportStatistics stats = transport.statistics();
            return new LoopResult(loops, clients.length, s.calls(), elapsed, measured,
                    measured * 1e9 / elapsed, results, usage.registeredBytes(), heapBefore, heapWith, starved, failed,
                    stats.get(Counter.READ_SINK_STARVATION), stats.get(Counter.REPLY_STAGING_STARVATION),
                    stats.get(Counter.READ_SINK_SHARE_WAITS) + stats.get(Counter.REPLY_STAGING_SHARE_WAITS),
                    stats.get(Counter.RECEIVE_STARVATION), stats.get(Counter.SEND_BUFFER_STARVATION),
                    stats.get(Counter.CALLS_DELIVERED));
        } finally {
            for (Client c : clients) {
                if (c != null) {
                    c.client.close();
                }
            }
            transport.close();
            transport.awaitClosed(30, TimeUnit.SECONDS);
            fabric.close();
        }
    }

    /** drive() - round-robin over every stride-th client: progress, collect answers, send more. */
    private static void drive(Client[] clients, int first, int stride, long deadline) throws Exception {
        int active = 0;
        for (int i = first; i < clients.length; i += stride) {
            active++;
        }
        while (active > 0) {
            if (System.nanoTime() > deadline) {
                return;
            }
            active = 0;
            int work = 0;
            for (int i = first; i < clients.length; i += stride) {
                Client c = clients[i];
                work += c.step();
                if (!c.done()) {
                    active++;
                }
            }
            if (work == 0) {
                // Nothing answered or sent in a whole pass: leave the CPUs to the loops for a moment.
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }
    }

    private static long heapAfterGc(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** EchoHandler - answers every call on the loop: an accepted SUCCESS with the call's arguments. */
    static final class EchoHandler implements RpcCallHandler {
        private static final int CALL_HEADER = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES;

        @Override
        public void onCall(ReceivedCall call) {
            ByteBuffer body = call.copyBody();
            int args = Math.max(0, body.remaining() - CALL_HEADER);
            ByteBuffer reply = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + args);
            RpcMessage.putAcceptedReplyHeader(reply, body.getInt(RpcMessage.XID_OFFSET), RpcMessage.SUCCESS);
            reply.put(body.position(CALL_HEADER < body.limit() ? CALL_HEADER : body.limit()));
            reply.flip();
            call.detachReply().send(reply, -1);
            call.release();
        }
    }

    /** Client - one connection, its calls in flight and its latencies. Driven by one driver thread. */
    static final class Client {
        final int index;
        final RpcRdmaClient client;
        final int total;
        final int warmup;
        final byte[] args;
        final CompletableFuture<?>[] pending;
        final long[] sentAt;
        final int[] xids;
        final long[] latencies;
        int sent;
        int answered;
        int failed;
        int measured;
        long measuredStartNanos = Long.MAX_VALUE;
        long lastAnswerNanos;

        Client(int index, RpcRdmaClient client, Settings s) {
            this.index = index;
            this.client = client;
            this.total = s.warmup() + s.calls();
            this.warmup = s.warmup();
            this.args = new byte[s.bytes()];
            Arrays.fill(args, (byte) index);
            this.pending = new CompletableFuture<?>[s.inFlight()];
            this.sentAt = new long[s.inFlight()];
            this.xids = new int[s.inFlight()];
            this.latencies = new long[s.calls()];
        }

        /** @return true when every call is answered (or failed) */
        boolean done() {
            return answered + failed >= total;
        }

        /** step() - progress, collect answers, send more. @return work done */
        int step() {
            int work = client.doWork();
            long now = System.nanoTime();
            for (int slot = 0; slot < pending.length; slot++) {
                CompletableFuture<?> f = pending[slot];
                if (f != null && f.isDone()) {
                    pending[slot] = null;
                    boolean good = !f.isCompletedExceptionally() && isEcho((RpcReply) f.getNow(null), xids[slot]);
                    if (good) {
                        if (answered >= warmup) {
                            latencies[measured++] = now - sentAt[slot];
                        }
                        answered++;
                    } else {
                        failed++;
                    }
                    lastAnswerNanos = now;
                    work++;
                }
                if (pending[slot] == null && sent < total) {
                    if (sent == warmup) {
                        measuredStartNanos = Math.min(measuredStartNanos, now);
                    }
                    int xid = (index << 16) | (sent & 0xffff);
                    xids[slot] = xid;
                    sentAt[slot] = System.nanoTime();
                    pending[slot] = client.call(CallRequest.builder(call(xid)).build());
                    sent++;
                    work++;
                }
            }
            return work;
        }

        private ByteBuffer call(int xid) {
            ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + args.length);
            RpcMessage.putCallHeader(b, xid, 0x20000101, 1, 1).put(args);
            return b.flip();
        }

        private boolean isEcho(RpcReply reply, int xid) {
            ByteBuffer body = reply.body();
            int results = RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES;
            if (body.remaining() != results + args.length || body.getInt(body.position()) != xid) {
                return false;
            }
            for (int i = 0; i < args.length; i++) {
                if (body.get(body.position() + results + i) != args[i]) {
                    return false;
                }
            }
            return true;
        }

        ClientResult result() {
            long[] sorted = Arrays.copyOf(latencies, measured);
            Arrays.sort(sorted);
            return new ClientResult(index, answered, failed, percentile(sorted, measured, 50), percentile(sorted, measured, 99),
                    measured == 0 ? 0 : sorted[measured - 1]);
        }
    }

    /** @return the nearest-rank percentile of the first {@code n} values (sorted here if needed) */
    static long percentile(long[] values, int n, double p) {
        if (n == 0) {
            return 0;
        }
        long[] v = Arrays.copyOf(values, n);
        Arrays.sort(v);
        int rank = (int) Math.ceil(p / 100.0 * n);
        return v[Math.max(0, Math.min(n - 1, rank - 1))];
    }

    private static void print(PrintStream out, LoopResult r, boolean everyClient) {
        out.printf(Locale.ROOT, "%nloops=%d: %d connections, %d calls/s (%d measured calls in %.2f s)%n", r.loops(),
                r.connections(), Math.round(r.callsPerSecond()), r.measuredCalls(), r.elapsedNanos() / 1e9);
        out.printf(Locale.ROOT, "  per-client p50: min %s, median %s, max %s%n", us(r.p50Percentile(0)), us(r.p50Percentile(50)),
                us(r.p50Percentile(100)));
        out.printf(Locale.ROOT, "  per-client p99: min %s, median %s, p99 of clients %s, worst client %s%n",
                us(r.p99Percentile(0)), us(r.p99Percentile(50)), us(r.p99Percentile(99)), us(r.worstP99Nanos()));
        out.printf(Locale.ROOT, "  clients starved: %d, failed calls: %d, calls delivered by the transport: %d%n",
                r.starvedClients(), r.failedCalls(), r.callsDelivered());
        out.printf(Locale.ROOT, "  server counters: READ_SINK_STARVATION %d, REPLY_STAGING_STARVATION %d, share waits %d, "
                        + "RECEIVE_STARVATION %d, SEND_BUFFER_STARVATION %d%n", r.serverReadSinkStarvation(),
                r.serverStagingStarvation(), r.serverShareWaits(), r.serverReceiveStarvation(), r.serverSendBufferStarvation());
        out.printf(Locale.ROOT, "  registered memory: %d KiB total, %d KiB per connection (transport's usage, server side)%n",
                r.registeredBytes() >> 10, r.registeredBytesPerConnection() >> 10);
        out.printf(Locale.ROOT, "  heap after GC: %d MiB before, %d MiB with the connections: %d KiB per connection "
                        + "(client and server in one JVM)%n", r.heapBeforeBytes() >> 20, r.heapWithConnectionsBytes() >> 20,
                r.heapBytesPerConnection() >> 10);
        if (everyClient) {
            for (ClientResult c : r.clients()) {
                out.printf(Locale.ROOT, "  client %4d: answered %d, failed %d, p50 %s, p99 %s, max %s%n", c.index(), c.answered(),
                        c.failed(), us(c.p50Nanos()), us(c.p99Nanos()), us(c.maxNanos()));
            }
        }
    }

    private static String us(long nanos) {
        return String.format(Locale.ROOT, "%.0f us", nanos / 1e3);
    }

    static String toJson(Settings s, List<LoopResult> results) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"benchmark\": \"org.rpcrdma4j.benchmarks.transport.ScaleRun\",\n");
        b.append("  \"connections\": ").append(s.connections()).append(", \"inFlight\": ").append(s.inFlight())
                .append(", \"calls\": ").append(s.calls()).append(", \"warmup\": ").append(s.warmup())
                .append(", \"bytes\": ").append(s.bytes()).append(", \"drivers\": ").append(s.drivers())
                .append(", \"cpus\": ").append(Runtime.getRuntime().availableProcessors())
                .append(", \"jvm\": \"").append(System.getProperty("java.version")).append("\",\n  \"runs\": [\n");
        for (int i = 0; i < results.size(); i++) {
            LoopResult r = results.get(i);
            b.append("    {\"loops\": ").append(r.loops()).append(", \"connections\": ").append(r.connections())
                    .append(", \"callsPerSecond\": ").append(String.format(Locale.ROOT, "%.1f", r.callsPerSecond()))
                    .append(", \"measuredCalls\": ").append(r.measuredCalls())
                    .append(", \"elapsedNanos\": ").append(r.elapsedNanos())
                    .append(", \"worstClientP99Nanos\": ").append(r.worstP99Nanos())
                    .append(", \"medianClientP99Nanos\": ").append(r.p99Percentile(50))
                    .append(", \"medianClientP50Nanos\": ").append(r.p50Percentile(50))
                    .append(", \"starvedClients\": ").append(r.starvedClients())
                    .append(", \"failedCalls\": ").append(r.failedCalls())
                    .append(", \"callsDelivered\": ").append(r.callsDelivered())
                    .append(", \"registeredBytes\": ").append(r.registeredBytes())
                    .append(", \"registeredBytesPerConnection\": ").append(r.registeredBytesPerConnection())
                    .append(", \"heapBeforeBytes\": ").append(r.heapBeforeBytes())
                    .append(", \"heapWithConnectionsBytes\": ").append(r.heapWithConnectionsBytes())
                    .append(", \"heapBytesPerConnection\": ").append(r.heapBytesPerConnection())
                    .append(", \"readSinkStarvation\": ").append(r.serverReadSinkStarvation())
                    .append(", \"replyStagingStarvation\": ").append(r.serverStagingStarvation())
                    .append(", \"shareWaits\": ").append(r.serverShareWaits())
                    .append(", \"receiveStarvation\": ").append(r.serverReceiveStarvation())
                    .append(", \"sendBufferStarvation\": ").append(r.serverSendBufferStarvation())
                    .append(",\n     \"clients\": [");
            List<ClientResult> cs = r.clients();
            for (int j = 0; j < cs.size(); j++) {
                ClientResult c = cs.get(j);
                b.append(j % 4 == 0 ? "\n       " : " ").append("{\"client\": ").append(c.index())
                        .append(", \"answered\": ").append(c.answered()).append(", \"failed\": ").append(c.failed())
                        .append(", \"p50Nanos\": ").append(c.p50Nanos()).append(", \"p99Nanos\": ").append(c.p99Nanos())
                        .append(", \"maxNanos\": ").append(c.maxNanos()).append('}').append(j + 1 < cs.size() ? "," : "");
            }
            b.append("]}").append(i + 1 < results.size() ? "," : "").append('\n');
        }
        return b.append("  ]\n}\n").toString();
    }
}
