package org.rpcrdma4j.benchmarks.hosted;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.benchmarks.BenchFiles;
import org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.Mount3;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.NfsExportService;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * Nfs3ReadCostRun - what our server's own threads spend per NFSv3 READ of 4 KiB at random
 * offsets, 32 in flight (the lab's random-read job), with the real NFSv3 program: over
 * RPC-over-RDMA on the threaded loopback fabric (the client offers a write chunk, as the Linux
 * client does) and over oncrpc4j's TCP service on 127.0.0.1, both servers in this JVM as in
 * Karaf. The lab's bar (b) compares the server's user-mode CPU per operation over RDMA with that
 * over TCP; in the lab a random read's server time cannot be taken apart from the soft device's
 * and the emulated CPU's, here it can, and a change to the call path can be judged in minutes.
 *
 * <p>Measured per operation, from the JVM's per-thread counters (com.sun.management
 * ThreadMXBean), so time a thread waited for a core does not count: the CPU time and the
 * user-mode CPU time of the server's threads (the names {@code rpcrdma4j-*} of the completion
 * loops, the host's workers and oncrpc4j's TCP selector and workers), and the bytes they
 * allocated; beside it the loopback fabric's thread and the client's thread. The loopback
 * provider executes a posted work request in the posting thread when it can, as rxe does for a
 * user queue pair, so the server's figures include the device's work for the server's posts
 * (moving the 4 KiB into the client's write chunk, the SEND): a profile separates them. Rounds alternate the order of the
 * transports; each transport's figures are the mean and standard deviation over rounds, and the
 * ratio RDMA / TCP is taken per round.
 *
 * <p>Every reply is checked on the hot path (xid, accepted, SUCCESS, NFS3_OK, its length; over
 * RDMA the data came in the write chunk); before the rounds, one READ over each transport is
 * compared byte for byte with the file.
 *
 * <pre>java --add-opens=java.base/sun.nio.fs=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     org.rpcrdma4j.benchmarks.hosted.Nfs3ReadCostRun [ROUNDS=10] [BATCHES=2000] [WARMUP_BATCHES=20000] [OUT.json]</pre>
 * ({@code -Dtransports=rdma} measures one alone, to profile it.)
 */
public final class Nfs3ReadCostRun {
    static final int READ_BYTES = 4096;
    static final int IN_FLIGHT = 32;
    /** The file read: larger than a cache of recent offsets, small enough to stay in the page cache. */
    static final int FILE_BYTES = 64 << 20;
    private static final String FABRIC_THREAD = "rpcrdma4j-loopback-fabric";

    private Nfs3ReadCostRun() {
    }

    /** CPU figures of one measured phase, per operation. */
    record Sample(double serverCpuNs, double serverUserNs, double serverAllocBytes, double fabricCpuNs,
            double clientCpuNs) {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int batches = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int warmupBatches = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        Path json = args.length > 3 ? Path.of(args[3]) : null;
        PrintStream out = System.out;
        if (!UnixStat.readsJdkStructure()) {
            out.println("note: java.base does not open sun.nio.fs here (" + UnixStat.OPEN_OPTION
                    + "): attributes take the unix: map route, unlike the Karaf assembly");
        }
        Map<String, List<Sample>> samples = measure(transports(), rounds, batches, warmupBatches);
        report(out, samples, batches);
        if (json != null) {
            Files.writeString(json, json(samples, batches, warmupBatches));
        }
    }

    /**
     * measure() - serves the NFSv3 program over each transport, checks one READ byte for byte,
     * warms up, then measures {@code rounds} rounds of {@code batches} batches of
     * {@value #IN_FLIGHT} READs per transport, the transports' order alternating by round.
     *
     * @return each transport's samples, one per round
     * @throws IllegalStateException when a reply fails its check
     */
    static Map<String, List<Sample>> measure(List<String> transports, int rounds, int batches, int warmupBatches)
            throws Exception {
        if (rounds < 2 || batches < 1 || warmupBatches < 0) {
            throw new IllegalArgumentException("rounds >= 2, batches >= 1, warm-up batches >= 0");
        }
        Path directory = Files.createTempDirectory("nfs3-read-cost");
        try {
            Path exportDir = Files.createDirectory(directory.resolve("export"));
            byte[] content = new byte[FILE_BYTES];
            new SplittableRandom(33).nextBytes(content);
            Path file = Files.write(exportDir.resolve("data"), content);
            int uid = (Integer) Files.getAttribute(file, "unix:uid");
            int gid = (Integer) Files.getAttribute(file, "unix:gid");
            try (NfsExportService service = NfsExportService.open(
                    List.of(Export.parse("/export " + exportDir + " 127.0.0.1/32(rw)")), directory.resolve("state"))) {
                Map<OncRpcProgram, RpcDispatchable> programs = Map.of(NfsExportService.NFS_PROGRAM, service.nfsProgram(),
                        NfsExportService.MOUNT_PROGRAM, service.mountProgram());
                Map<String, Side> sides = new LinkedHashMap<>();
                try {
                    for (String transport : transports) {
                        BenchServer server = BenchServer.start(transport, 0, programs, new NfsUpperLayerBinding());
                        Side side = new Side(transport, server);
                        sides.put(transport, side);
                        side.channel = server.connect(IN_FLIGHT, 256, 256 + READ_BYTES);
                        byte[] handle = side.lookup(uid, gid, "data");
                        side.workload = readWorkload(handle, uid, gid);
                        side.checkWholeRead(content, uid, gid, handle);
                    }
                    return rounds(sides, rounds, batches, warmupBatches);
                } finally {
                    for (Side side : sides.values()) {
                        side.close();
                    }
                }
            }
        } finally {
            BenchFiles.deleteTree(directory);
        }
    }

    private static Map<String, List<Sample>> rounds(Map<String, Side> sides, int rounds, int batches,
            int warmupBatches) throws Exception {
        for (Side side : sides.values()) {
            side.batches(warmupBatches);
        }
        List<String> order = new ArrayList<>(sides.keySet());
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        for (String t : order) {
            samples.put(t, new ArrayList<>());
        }
        for (int r = 0; r < rounds; r++) {
            List<String> thisRound = new ArrayList<>(order);
            if (r % 2 == 1) {
                Collections.reverse(thisRound);
            }
            for (String t : thisRound) {
                samples.get(t).add(sides.get(t).measure(batches));
            }
        }
        return samples;
    }

    private static void report(PrintStream out, Map<String, List<Sample>> samples, int batches) {
        int rounds = samples.values().iterator().next().size();
        out.printf(Locale.ROOT, "NFSv3 READ %d B at random offsets, %d in flight; %d rounds of %d calls per transport%n",
                READ_BYTES, IN_FLIGHT, rounds, batches * IN_FLIGHT);
        out.printf(Locale.ROOT, "%-5s %18s %18s %14s %16s %16s%n", "", "server cpu ns/op", "server user ns/op",
                "server B/op", "fabric cpu ns/op", "client cpu ns/op");
        samples.forEach((t, s) -> out.printf(Locale.ROOT, "%-5s %18s %18s %14s %16s %16s%n", t,
                meanSd(s, Sample::serverCpuNs), meanSd(s, Sample::serverUserNs), meanSd(s, Sample::serverAllocBytes),
                meanSd(s, Sample::fabricCpuNs), meanSd(s, Sample::clientCpuNs)));
        List<Sample> rdma = samples.get(BenchServer.RDMA);
        List<Sample> tcp = samples.get(BenchServer.TCP);
        if (rdma == null || tcp == null) {
            return;
        }
        double[] cpuRatio = new double[rounds];
        double[] userRatio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            cpuRatio[r] = rdma.get(r).serverCpuNs() / tcp.get(r).serverCpuNs();
            userRatio[r] = rdma.get(r).serverUserNs() / tcp.get(r).serverUserNs();
        }
        out.printf(Locale.ROOT, "RDMA / TCP per round: server cpu %s, server user %s%n",
                meanSd(cpuRatio, "%.3f"), meanSd(userRatio, "%.3f"));
    }

    private static String json(Map<String, List<Sample>> samples, int batches, int warmupBatches) {
        StringBuilder b = new StringBuilder("{\"benchmark\":\"Nfs3ReadCostRun\",\"readBytes\":").append(READ_BYTES)
                .append(",\"inFlight\":").append(IN_FLIGHT).append(",\"callsPerRound\":").append(batches * IN_FLIGHT)
                .append(",\"warmupCalls\":").append((long) warmupBatches * IN_FLIGHT).append(",\"rounds\":{");
        String comma = "";
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            b.append(comma).append('"').append(e.getKey()).append("\":[");
            comma = ",";
            List<Sample> s = e.getValue();
            for (int i = 0; i < s.size(); i++) {
                Sample x = s.get(i);
                b.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                        "{\"serverCpuNs\":%.1f,\"serverUserNs\":%.1f,\"serverAllocBytes\":%.1f,"
                                + "\"fabricCpuNs\":%.1f,\"clientCpuNs\":%.1f}",
                        x.serverCpuNs(), x.serverUserNs(), x.serverAllocBytes(), x.fabricCpuNs(), x.clientCpuNs()));
            }
            b.append(']');
        }
        return b.append("}}\n").toString();
    }

    /** The transports to measure: property {@code transports}, "rdma,tcp" by default (one alone to profile it). */
    static List<String> transports() {
        List<String> t = List.of(System.getProperty("transports", BenchServer.RDMA + "," + BenchServer.TCP).split(","));
        check(!t.isEmpty() && t.stream().allMatch(x -> x.equals(BenchServer.RDMA) || x.equals(BenchServer.TCP)),
                "-Dtransports=rdma,tcp or one of them: " + t);
        return t;
    }

    private static String meanSd(List<Sample> s, java.util.function.ToDoubleFunction<Sample> f) {
        return meanSd(s.stream().mapToDouble(f).toArray(), "%.0f");
    }

    private static String meanSd(double[] v, String format) {
        double mean = 0;
        for (double x : v) {
            mean += x;
        }
        mean /= v.length;
        double ss = 0;
        for (double x : v) {
            ss += (x - mean) * (x - mean);
        }
        double sd = Math.sqrt(ss / (v.length - 1));
        return String.format(Locale.ROOT, format + " +- " + format, mean, sd);
    }

    /** An RPC call of {@code program} version 3 with AUTH_SYS (uid, gid) and AUTH_NONE verifier. */
    static ByteBuffer call(int program, int procedure, int uid, int gid, byte[] arguments) {
        ByteBuffer b = ByteBuffer.allocate(64 + arguments.length);
        b.putInt(0).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(program).putInt(3).putInt(procedure);
        b.putInt(RpcMessage.AUTH_SYS).putInt(20).putInt(0).putInt(0).putInt(uid).putInt(gid).putInt(0);
        b.putInt(RpcMessage.AUTH_NONE).putInt(0);
        b.put(arguments);
        return b.flip();
    }

    static byte[] opaque(byte[] data) {
        return ByteBuffer.allocate(4 + (int) Xdr.roundUp(data.length)).putInt(data.length).put(data).array();
    }

    /** Offset of READ3args.offset in a call of {@link #call} with this handle. */
    private static int offsetAt(byte[] handle) {
        return 60 + 4 + (int) Xdr.roundUp(handle.length);
    }

    private static ByteBuffer readCall(byte[] handle, int uid, int gid, long offset) {
        byte[] fh = opaque(handle);
        byte[] args = ByteBuffer.allocate(fh.length + 12).put(fh).putLong(offset).putInt(READ_BYTES).array();
        return call(Nfs3.PROGRAM, Nfs3.NFSPROC3_READ, uid, gid, args);
    }

    /**
     * The whole RPC reply of a READ3resok of {@link #READ_BYTES} with attributes: status,
     * post_op_attr (true and fattr3's 84 bytes), count, eof, the data's length and the data.
     */
    static final int READ_REPLY_BYTES = BenchRpc.RESULTS_OFFSET + 4 + 4 + 84 + 4 + 4 + 4 + READ_BYTES;

    private static Workload readWorkload(byte[] handle, int uid, int gid) {
        SplittableRandom random = new SplittableRandom(4096);
        int offsetAt = offsetAt(handle);
        int pages = FILE_BYTES / READ_BYTES;
        return Workload.repeated("NFSv3 READ " + READ_BYTES + " x" + IN_FLIGHT, IN_FLIGHT,
                () -> readCall(handle, uid, gid, 0), READ_REPLY_BYTES, Nfs3.NFS3_OK, READ_BYTES,
                message -> message.putLong(offsetAt, (long) random.nextInt(pages) * READ_BYTES));
    }

    /** One transport's server, its client channel and workload. */
    private static final class Side implements AutoCloseable {
        final String transport;
        final BenchServer server;
        RpcChannel channel;
        Workload workload;
        int xid = 0x10000;

        Side(String transport, BenchServer server) {
            this.transport = transport;
            this.server = server;
        }

        byte[] lookup(int uid, int gid, String name) throws Exception {
            ByteBuffer mnt = call(Mount3.PROGRAM, Mount3.MOUNTPROC3_MNT, uid, gid,
                    opaque("/export".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer m = results(once("MNT", mnt));
            check(m.getInt(0) == 0, "MNT /export: status " + m.getInt(0));
            byte[] root = handle(m, 4);
            byte[] fh = opaque(root);
            byte[] nm = opaque(name.getBytes(StandardCharsets.UTF_8));
            ByteBuffer args = ByteBuffer.allocate(fh.length + nm.length).put(fh).put(nm);
            ByteBuffer l = results(once("LOOKUP", call(Nfs3.PROGRAM, Nfs3.NFSPROC3_LOOKUP, uid, gid, args.array())));
            check(l.getInt(0) == Nfs3.NFS3_OK, "LOOKUP " + name + ": status " + l.getInt(0));
            return handle(l, 4);
        }

        /** One READ at a known offset, its whole reply compared with the file's bytes. */
        void checkWholeRead(byte[] content, int uid, int gid, byte[] handle) throws Exception {
            long offset = 12345L * READ_BYTES;
            ByteBuffer read = readCall(handle, uid, gid, offset);
            byte[] whole = channel.wholeReply(Workload.single("READ", read, READ_REPLY_BYTES, Nfs3.NFS3_OK, READ_BYTES,
                    message -> { }), xid++);
            check(whole.length == READ_REPLY_BYTES, transport + ": READ reply of " + whole.length + " bytes");
            ByteBuffer data = ByteBuffer.wrap(whole, READ_REPLY_BYTES - READ_BYTES, READ_BYTES);
            check(data.equals(ByteBuffer.wrap(content, (int) offset, READ_BYTES)),
                    transport + ": the READ's data differ from the file's");
        }

        private ByteBuffer once(String what, ByteBuffer call) throws Exception {
            byte[] whole = channel.wholeReply(Workload.single(what, call, Integer.MAX_VALUE, -1, 0, message -> { }), xid++);
            return ByteBuffer.wrap(whole);
        }

        private static ByteBuffer results(ByteBuffer reply) {
            int at = RpcMessage.resultsOffset(reply);
            check(at != RpcMessage.NONE, "an accepted reply with status SUCCESS");
            return reply.position(reply.position() + at).slice();
        }

        private static byte[] handle(ByteBuffer results, int at) {
            byte[] fh = new byte[results.getInt(at)];
            results.get(at + 4, fh);
            return fh;
        }

        void batches(int n) throws Exception {
            for (int i = 0; i < n; i++) {
                int failed = channel.run(workload, xid);
                xid += IN_FLIGHT;
                check(failed == 0, transport + ": " + failed + " READ replies failed the check");
            }
        }

        Sample measure(int batches) throws Exception {
            Map<Long, long[]> before = ThreadCounters.snapshot();
            batches(batches);
            return ThreadCounters.perOperation(before, ThreadCounters.snapshot(), (double) batches * IN_FLIGHT);
        }

        @Override
        public void close() throws Exception {
            try {
                if (channel != null) {
                    channel.close();
                }
            } finally {
                server.close();
            }
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    /** The JVM's per-thread counters, and whose thread each is. */
    private static final class ThreadCounters {
        private static final com.sun.management.ThreadMXBean THREADS =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        private static final int SERVER = 0;
        private static final int FABRIC = 1;
        private static final int CLIENT = 2;

        /** @return by thread id: {kind, CPU ns, user ns, allocated bytes} of the server's, fabric's and this thread */
        static Map<Long, long[]> snapshot() {
            Map<Long, long[]> per = new HashMap<>();
            long self = Thread.currentThread().getId();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String name = t.getName();
                long id = t.getId();
                int kind = id == self ? CLIENT : name.equals(FABRIC_THREAD) ? FABRIC
                        : name.startsWith("rpcrdma4j-") && !name.startsWith("rpcrdma4j-client") ? SERVER : -1;
                if (kind >= 0) {
                    per.put(id, new long[] {kind, THREADS.getThreadCpuTime(id), THREADS.getThreadUserTime(id),
                            THREADS.getThreadAllocatedBytes(id)});
                }
            }
            return per;
        }

        /** @return the counters' growth from {@code before} to {@code after} per operation, over the threads alive at both */
        static Sample perOperation(Map<Long, long[]> before, Map<Long, long[]> after, double ops) {
            long[] cpu = new long[3];
            long user = 0;
            long alloc = 0;
            for (Map.Entry<Long, long[]> e : after.entrySet()) {
                long[] a = e.getValue();
                long[] b = before.get(e.getKey());
                if (b == null || a[1] < 0 || b[1] < 0) {
                    continue;
                }
                int kind = (int) a[0];
                cpu[kind] += a[1] - b[1];
                if (kind == SERVER) {
                    user += a[2] - b[2];
                    alloc += a[3] - b[3];
                }
            }
            return new Sample(cpu[SERVER] / ops, user / ops, alloc / ops, cpu[FABRIC] / ops, cpu[CLIENT] / ops);
        }
    }
}
