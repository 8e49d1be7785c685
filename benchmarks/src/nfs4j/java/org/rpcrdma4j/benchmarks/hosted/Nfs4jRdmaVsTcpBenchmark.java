package org.rpcrdma4j.benchmarks.hosted;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.CompoundBuilder;
import org.dcache.nfs.v4.xdr.COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.nfs_fh4;
import org.dcache.nfs.v4.xdr.sessionid4;
import org.dcache.nfs.v4.xdr.state_protect_how4;
import org.dcache.nfs.v4.xdr.stateid4;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rpcrdma4j.benchmarks.BenchFiles;
import org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.nfs4j.Nfs4jServers;

/**
 * Nfs4jRdmaVsTcpBenchmark - dCache nfs4j's NFSv4.1 server on the export bundle's file system,
 * served by the host server over RPC-over-RDMA on the threaded loopback fabric
 * ({@code transport=rdma}) and over oncrpc4j's TCP service on 127.0.0.1 ({@code transport=tcp}),
 * one client and one session each, one call at a time:
 * <ul>
 * <li>{@code compound}: SEQUENCE + PUTFH + GETATTR (type, size, change, mtime), what a client's
 *     revalidation costs;</li>
 * <li>{@code read4KiB}: SEQUENCE + PUTFH + READ of 4 KiB, as each of the lab's random reads;</li>
 * <li>{@code read1MiB}: SEQUENCE + PUTFH + READ of 1 MiB (anonymous stateid); over RDMA the client
 *     offers a write chunk and the NFS binding places the data by RDMA WRITE. MB/s = ops/s x 1.048576.</li>
 * </ul>
 * Each call's SEQUENCE carries its slot's next sequence id. Every reply is checked on the hot path
 * (xid, accepted, length, COMPOUND status NFS4_OK); setup and teardown read the file whole and
 * compare it with the file on disk.
 *
 * <p>Run: {@code ./bench -f 3 -wi 3 -i 5 Nfs4jRdmaVsTcp} (the benchmarks built with the nfs4j
 * profile: {@code mvn -Pnfs4j install -pl benchmarks -am}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class Nfs4jRdmaVsTcpBenchmark {
    private static final int READ_BYTES = 1 << 20;
    /** The lab's random reads: one page. */
    private static final int SMALL_READ_BYTES = 4096;

    @Param({BenchServer.RDMA, BenchServer.TCP})
    String transport;

    private Path directory;
    private byte[] data;
    private Nfs4jServers servers;
    private BenchServer server;
    private RpcChannel channel;
    private int xid;
    private sessionid4 session;
    private int slotSequence;
    private Workload compound;
    private Workload read;
    private Workload smallRead;
    private long replies;
    private long failures;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        directory = Files.createTempDirectory("nfs4j-bench");
        Path root = Files.createDirectory(directory.resolve("root"));
        data = new byte[READ_BYTES];
        new Random(20261205).nextBytes(data);
        Files.write(root.resolve("data.bin"), data);
        servers = new Nfs4jServers(new Nfs4jServers.Settings(root, List.of("/ 127.0.0.1(rw,no_root_squash,insecure)"),
                directory.resolve("state"), Set.of(Nfs4jServers.Version.NFS4), Duration.ofSeconds(90)));
        server = BenchServer.start(transport, 0, servers.programs(), new NfsUpperLayerBinding());
        channel = server.connect(1, 64 * 1024, READ_BYTES + 64 * 1024);
        xid = ThreadLocalRandom.current().nextInt();

        COMPOUND4res exchanged = setupCall(new CompoundBuilder().withMinorversion(1)
                .withExchangeId("rpcrdma4j.org", "Nfs4jRdmaVsTcpBenchmark", "bench-" + System.nanoTime(), 0,
                        state_protect_how4.SP4_NONE).build());
        var exchange = exchanged.resarray.get(0).opexchange_id.eir_resok4;
        COMPOUND4res created = setupCall(new CompoundBuilder().withMinorversion(1)
                .withCreatesession(exchange.eir_clientid, exchange.eir_sequenceid).build());
        session = created.resarray.get(0).opcreate_session.csr_resok4.csr_sessionid;
        setupCall(sequenced().withReclaimComplete().build());
        COMPOUND4res looked = setupCall(sequenced().withPutrootfh().withLookup("data.bin").withGetfh().build());
        nfs_fh4 handle = looked.resarray.get(3).opgetfh.resok4.object;

        compound = workload("SEQUENCE+PUTFH+GETATTR", sequenced().withPutfh(handle).withGetattr(nfs4_prot.FATTR4_TYPE,
                nfs4_prot.FATTR4_SIZE, nfs4_prot.FATTR4_CHANGE, nfs4_prot.FATTR4_TIME_MODIFY).build(), 0);
        read = workload("SEQUENCE+PUTFH+READ 1 MiB", sequenced().withPutfh(handle)
                .withRead(READ_BYTES, 0, new stateid4(new byte[12], 0)).build(), READ_BYTES);
        smallRead = workload("SEQUENCE+PUTFH+READ 4 KiB", sequenced().withPutfh(handle)
                .withRead(SMALL_READ_BYTES, 0, new stateid4(new byte[12], 0)).build(), SMALL_READ_BYTES);
        checkRead("setup");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            checkRead("teardown");
            if (failures > 0) {
                throw new IllegalStateException(transport + ": " + failures + " of " + replies
                        + " replies failed the check; the score is not valid. Server: " + server.statistics());
            }
        } finally {
            try {
                if (channel != null) {
                    channel.close();
                }
                if (server != null) {
                    server.close();
                }
                if (servers != null) {
                    servers.close();
                }
            } finally {
                BenchFiles.deleteTree(directory);
            }
        }
    }

    /** One SEQUENCE + PUTFH + GETATTR and its reply. */
    @Benchmark
    public void compound() throws Exception {
        run(compound);
    }

    /** One SEQUENCE + PUTFH + READ of 1 MiB (over RDMA: RDMA WRITE into the client's write chunk). */
    @Benchmark
    public void read1MiB() throws Exception {
        run(read);
    }

    /**
     * One SEQUENCE + PUTFH + READ of {@value #SMALL_READ_BYTES} bytes, what each of the lab's
     * random reads costs (over RDMA the data goes by RDMA WRITE into the client's write chunk).
     */
    @Benchmark
    public void read4KiB() throws Exception {
        run(smallRead);
    }

    private void run(Workload workload) throws Exception {
        failures += channel.run(workload, xid++);
        replies++;
    }

    /** The whole READ reply's data, compared with the file. */
    private void checkRead(String when) throws Exception {
        byte[] whole = channel.wholeReply(read, xid++);
        byte[] got = Arrays.copyOfRange(whole, whole.length - READ_BYTES, whole.length);
        if (!Arrays.equals(data, got)) {
            throw new IllegalStateException(transport + " " + when + ": the READ data differs from the file at byte "
                    + Arrays.mismatch(data, got));
        }
    }

    /** A COMPOUND that starts with SEQUENCE on slot 0 (the builder adds one to the id it is given). */
    private CompoundBuilder sequenced() {
        return new CompoundBuilder().withMinorversion(1).withSequence(false, session, slotSequence++, 0, 0);
    }

    /**
     * A workload of one COMPOUND starting with SEQUENCE, whose sequence id is set to the slot's
     * next one before each send; its reply length measured once here.
     */
    private Workload workload(String name, COMPOUND4args args, int ddpBytes) throws Exception {
        ByteBuffer call = encode(args);
        int sequenceIdAt = RpcMessage.argumentsOffset(call) + 4 + (int) org.rpcrdma4j.codec.Xdr.roundUp(args.tag.value.length)
                + 4 + 4 + 4 + nfs4_prot.NFS4_SESSIONID_SIZE;
        Workload probe = Workload.single(name, call, Integer.MAX_VALUE, nfsstat.NFS_OK, ddpBytes,
                message -> message.putInt(sequenceIdAt, ++slotSequence));
        slotSequence--; // the probe call takes the id the builder put in
        byte[] whole = channel.wholeReply(probe, xid++);
        int status = ByteBuffer.wrap(whole).getInt(BenchRpc.RESULTS_OFFSET);
        if (status != nfsstat.NFS_OK) {
            throw new IllegalStateException(name + ": status " + status);
        }
        return Workload.single(name, call, whole.length, nfsstat.NFS_OK, ddpBytes,
                message -> message.putInt(sequenceIdAt, ++slotSequence));
    }

    private COMPOUND4res setupCall(COMPOUND4args args) throws Exception {
        Workload once = Workload.single("setup", encode(args), Integer.MAX_VALUE, -1, 0, message -> { });
        byte[] whole = channel.wholeReply(once, xid++);
        Xdr in = new Xdr(whole);
        in.beginDecoding();
        for (int i = 0; i < BenchRpc.RESULTS_OFFSET / 4; i++) {
            in.xdrDecodeInt();
        }
        COMPOUND4res result = new COMPOUND4res();
        result.xdrDecode(in);
        if (result.status != nfsstat.NFS_OK) {
            throw new IllegalStateException("setup COMPOUND failed with status " + result.status);
        }
        return result;
    }

    private static ByteBuffer encode(COMPOUND4args args) throws IOException {
        Xdr xdr = new Xdr(64 * 1024);
        xdr.beginEncoding();
        for (int word : new int[] {0, 0, 2, nfs4_prot.NFS4_PROGRAM, nfs4_prot.NFS_V4, 1, 1, 20, 0, 0, 0, 0, 0, 0, 0}) {
            xdr.xdrEncodeInt(word);
        }
        args.xdrEncode(xdr);
        xdr.endEncoding();
        ByteBuffer encoded = xdr.asBuffer().toByteBuffer();
        ByteBuffer call = ByteBuffer.allocate(encoded.remaining());
        call.put(encoded).flip();
        return call;
    }
}
