package org.rpcrdma4j.itests.transport;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.CompoundBuilder;
import org.dcache.nfs.v4.xdr.COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.EXCHANGE_ID4resok;
import org.dcache.nfs.v4.xdr.sessionid4;
import org.dcache.nfs.v4.xdr.state_protect_how4;
import org.dcache.nfs.v4.xdr.stateid4;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.MethodSorters;
import org.apache.karaf.features.FeaturesService;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.options.MavenUrlReference;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * dCache nfs4j in a stock Karaf through the {@code rpcrdma4j-nfs4j} feature (its nfs4j-core
 * wrapper, the export bundle, configured by {@code etc/org.rpcrdma4j.nfs4j.cfg}): nfs4j's NFSv4
 * program joins the host server's whiteboard and answers over oncrpc4j TCP and over
 * RPC-over-RDMA (loopback provider) at once; the registration strategy is switched lkey, frmr,
 * lkey under a load of NFSv4.1 WRITEs whose data travels in read chunks, and no call fails and
 * every byte lands; uninstalling the feature takes the program and every bundle of it away.
 *
 * <p>The first test's calls are NFSv4.0 COMPOUNDs (PUTROOTFH + GETATTR, no session); the load's
 * writers each hold an NFSv4.1 session on the one RDMA connection (EXCHANGE_ID, CREATE_SESSION,
 * RECLAIM_COMPLETE) and send SEQUENCE + PUTROOTFH + LOOKUP + WRITE with the anonymous stateid
 * (RFC 8881 §8.2.3 allows it where the mode permits), built with nfs4j's own XDR types.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class Nfs4jExportIT extends TransportTestSupport {
    private static final int NFS_PROGRAM = 100003;
    private static final int NFS_V4 = 4;
    private static final int NFSPROC4_COMPOUND = 1;
    private static final int WRITERS = 3;
    private static final int BLOCK = 8192;
    /** WRITEs each phase must see under its strategy before the next switch. */
    private static final int READS_PER_PHASE = 100;
    /** System property that hands the served directory (made outside the container) to the probe. */
    private static final String ROOT_PROPERTY = "rpcrdma4j.itest.nfs4j.root";

    @Override
    protected Option[] extraOptions() {
        File root = new File("target/nfs4j-export").getAbsoluteFile();
        File state = new File("target/nfs4j-state").getAbsoluteFile();
        try {
            Files.createDirectories(root.toPath());
            Files.createDirectories(state.toPath());
            Files.write(root.toPath().resolve("data.bin"), new byte[0]);
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare the nfs4j root " + root, e);
        }
        MavenUrlReference nfs4jFeatures = maven().groupId("org.rpcrdma4j").artifactId("rpcrdma4j-nfs4j-features")
                .type("xml").classifier("features").version(System.getProperty("project.version"));
        List<Option> options = new ArrayList<>(Arrays.asList(super.extraOptions()));
        options.add(features(nfs4jFeatures, "rpcrdma4j-nfs4j"));
        options.add(editConfigurationFilePut("etc/org.rpcrdma4j.nfs4j.cfg", "root", root.toString()));
        options.add(systemProperty(ROOT_PROPERTY).value(root.toString()));
        options.add(editConfigurationFilePut("etc/org.rpcrdma4j.nfs4j.cfg", "stateDirectory", state.toString()));
        options.add(editConfigurationFilePut("etc/org.rpcrdma4j.nfs4j.cfg", "exports",
                "/ 127.0.0.1(rw,no_root_squash,insecure)"));
        return options.toArray(new Option[0]);
    }

    /** An RPC call message: AUTH_SYS root, the COMPOUND's arguments. */
    private static ByteBuffer callMessage(int xid, COMPOUND4args args) throws IOException {
        Xdr xdr = new Xdr(64 * 1024);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(xid);
        xdr.xdrEncodeInt(RpcMessage.CALL);
        xdr.xdrEncodeInt(RpcMessage.RPC_VERSION);
        xdr.xdrEncodeInt(NFS_PROGRAM);
        xdr.xdrEncodeInt(NFS_V4);
        xdr.xdrEncodeInt(NFSPROC4_COMPOUND);
        // AUTH_SYS: stamp, machine name "", uid 0, gid 0, no groups; verifier AUTH_NONE.
        for (int word : new int[] {RpcMessage.AUTH_SYS, 20, 0, 0, 0, 0, 0, RpcMessage.AUTH_NONE, 0}) {
            xdr.xdrEncodeInt(word);
        }
        args.xdrEncode(xdr);
        xdr.endEncoding();
        return xdr.asBuffer().toByteBuffer();
    }

    /** The COMPOUND4res of an accepted, successful RPC reply. */
    private static COMPOUND4res compoundResult(RpcReply reply) throws IOException {
        ByteBuffer body = reply.body();
        byte[] bytes = new byte[body.remaining()];
        body.get(bytes);
        ByteBuffer view = ByteBuffer.wrap(bytes);
        assertEquals("MSG_ACCEPTED", RpcMessage.MSG_ACCEPTED, view.getInt(RpcMessage.REPLY_STAT_OFFSET));
        int acceptStatAt = RpcMessage.acceptStatOffset(view);
        assertEquals("SUCCESS", RpcMessage.SUCCESS, view.getInt(acceptStatAt));
        Xdr in = new Xdr(bytes);
        in.beginDecoding();
        for (int i = 0; i < (acceptStatAt + 4) / 4; i++) {
            in.xdrDecodeInt();
        }
        COMPOUND4res result = new COMPOUND4res();
        result.xdrDecode(in);
        return result;
    }

    private static COMPOUND4args rootAttributes() {
        return new CompoundBuilder().withMinorversion(0).withPutrootfh().withGetattr(nfs4_prot.FATTR4_TYPE)
                .withTag("getattr").build();
    }

    @Test
    public void a_nfs4jServesNfsv4OverTcpAndRdmaAtOnce() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        awaitCondition("nfs4j's NFSv4 program registered", () -> !nfs4Programs().isEmpty());

        try (RpcRdmaClient client = connect(rdma)) {
            COMPOUND4res overRdma = compoundResult(client.call(CallRequest.builder(callMessage(1, rootAttributes()))
                    .build(), CALL_TIMEOUT));
            assertEquals("PUTROOTFH + GETATTR over RDMA", nfsstat.NFS_OK, overRdma.status);
        }
        try (OncRpcClient tcp = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP,
                awaitTcp().localAddress().getPort())) {
            COMPOUND4res overTcp = new COMPOUND4res();
            new RpcCall(NFS_PROGRAM, NFS_V4, new RpcAuthTypeUnix(0, 0, new int[] {0}, 0, "itest"), tcp.connect())
                    .call(NFSPROC4_COMPOUND, rootAttributes(), overTcp);
            assertEquals("PUTROOTFH + GETATTR over TCP", nfsstat.NFS_OK, overTcp.status);
        }
    }

    @Test
    public void b_aStrategySwapUnderNfsv41WritesFailsNoCall() throws Exception {
        RdmaTransportControl rdma = awaitRdma();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong written = new AtomicLong();
        long[] lastBlock = new long[WRITERS];
        List<Thread> writers = new ArrayList<>();
        try (RpcRdmaClient client = connect(rdma)) {
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread thread = new Thread(() -> {
                    Session session;
                    try {
                        session = Session.open(client, "itest-writer-" + writer, (writer + 1) << 24);
                    } catch (Exception | AssertionError e) {
                        failures.add("writer " + writer + " found no NFSv4.1 session: " + e);
                        return;
                    }
                    for (long block = 0; running.get() && failures.isEmpty(); block++) {
                        long offset = (block * WRITERS + writer) * (long) BLOCK;
                        byte[] data = pattern(offset);
                        COMPOUND4args write = session.sequenced().withPutrootfh().withLookup("data.bin")
                                .withWrite(offset, ByteBuffer.wrap(data), new stateid4(new byte[12], 0))
                                .withTag("write").build();
                        try {
                            ByteBuffer message = callMessage(session.nextXid(), write);
                            // The WRITE data is the message's last item: it travels in a read chunk.
                            CallRequest request = CallRequest.builder(message)
                                    .readChunk(message.remaining() - BLOCK, BLOCK).build();
                            COMPOUND4res result = compoundResult(client.call(request, CALL_TIMEOUT));
                            if (result.status != nfsstat.NFS_OK) {
                                failures.add("WRITE at " + offset + ": status " + result.status);
                            }
                            lastBlock[writer] = block;
                            written.incrementAndGet();
                        } catch (Exception | AssertionError e) {
                            failures.add("WRITE at " + offset + ": " + e);
                        }
                    }
                }, "nfs4j-itest-writer-" + w);
                thread.start();
                writers.add(thread);
            }
            try {
                for (String strategy : List.of("lkey", "frmr", "lkey")) {
                    configureActiveStrategy(strategy);
                    awaitCondition(strategy + " active", () -> strategy.equals(rdma.activeStrategy()));
                    long target = reads(rdma, strategy) + READS_PER_PHASE;
                    awaitCondition(READS_PER_PHASE + " more READs under " + strategy + " (failures " + failures + ")",
                            () -> reads(rdma, strategy) >= target || !failures.isEmpty());
                }
            } finally {
                running.set(false);
                for (Thread thread : writers) {
                    thread.join(BOUND.toMillis());
                }
            }
        }
        assertEquals("every NFSv4.1 WRITE answered NFS4_OK", List.of(), new ArrayList<>(failures));
        assertTrue("READs under both strategies: " + rdma.statistics().readsByStrategy(),
                reads(rdma, "lkey") >= 2 * READS_PER_PHASE && reads(rdma, "frmr") >= READS_PER_PHASE);
        assertEquals(0, rdma.statistics().get(Counter.READ_ERRORS));
        byte[] file = Files.readAllBytes(root().resolve("data.bin"));
        for (int writer = 0; writer < WRITERS; writer++) {
            for (long block = 0; block <= lastBlock[writer]; block++) {
                long offset = (block * WRITERS + writer) * (long) BLOCK;
                assertArrayEquals("block at " + offset + " on disk", pattern(offset),
                        Arrays.copyOfRange(file, (int) offset, (int) offset + BLOCK));
            }
        }
        System.out.println("nfs4j strategy swap: " + written.get() + " WRITEs answered, READs by strategy "
                + rdma.statistics().readsByStrategy());
    }

    /** The served directory, as the configuration names it. */
    private static Path root() {
        return Path.of(System.getProperty(ROOT_PROPERTY));
    }

    /**
     * An NFSv4.1 client's session on an RDMA connection (EXCHANGE_ID, CREATE_SESSION,
     * RECLAIM_COMPLETE), one slot, used by one thread: each COMPOUND starts with SEQUENCE on it.
     */
    private static final class Session {
        private final sessionid4 id;
        private int xid;
        private int slotSequence;

        private Session(sessionid4 id, int xid) {
            this.id = id;
            this.xid = xid;
        }

        static Session open(RpcRdmaClient client, String owner, int firstXid) throws Exception {
            int xid = firstXid;
            COMPOUND4res exchanged = compoundResult(client.call(CallRequest.builder(callMessage(xid++,
                    new CompoundBuilder().withMinorversion(1).withExchangeId("rpcrdma4j.org", "Nfs4jExportIT",
                            owner + "-" + System.nanoTime(), 0, state_protect_how4.SP4_NONE).build())).build(),
                    CALL_TIMEOUT));
            assertEquals("EXCHANGE_ID", nfsstat.NFS_OK, exchanged.status);
            EXCHANGE_ID4resok client4 = exchanged.resarray.get(0).opexchange_id.eir_resok4;
            COMPOUND4res created = compoundResult(client.call(CallRequest.builder(callMessage(xid++,
                    new CompoundBuilder().withMinorversion(1).withCreatesession(client4.eir_clientid,
                            client4.eir_sequenceid).build())).build(), CALL_TIMEOUT));
            assertEquals("CREATE_SESSION", nfsstat.NFS_OK, created.status);
            Session session = new Session(created.resarray.get(0).opcreate_session.csr_resok4.csr_sessionid, xid);
            COMPOUND4res complete = compoundResult(client.call(CallRequest.builder(callMessage(session.nextXid(),
                    session.sequenced().withReclaimComplete().build())).build(), CALL_TIMEOUT));
            assertEquals("RECLAIM_COMPLETE", nfsstat.NFS_OK, complete.status);
            return session;
        }

        /** A COMPOUND starting with SEQUENCE on slot 0 with its next sequence id (the builder adds one). */
        CompoundBuilder sequenced() {
            return new CompoundBuilder().withMinorversion(1).withSequence(false, id, slotSequence++, 0, 0);
        }

        int nextXid() {
            return xid++;
        }
    }

    /** The NFSv4 programs registered for the host server's whiteboard. */
    private Collection<ServiceReference<RpcDispatchable>> nfs4Programs() {
        try {
            return bundleContext.getServiceReferences(RpcDispatchable.class,
                    "(&(rpc.program=" + NFS_PROGRAM + ")(rpc.version=" + NFS_V4 + "))");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bytes a block at this offset must hold: its offset, word by word. */
    private static byte[] pattern(long offset) {
        ByteBuffer data = ByteBuffer.allocate(BLOCK);
        while (data.hasRemaining()) {
            data.putLong(offset + data.position());
        }
        return data.array();
    }

    @Test
    public void c_uninstallingTheFeatureTakesNfs4jAway() throws Exception {
        String version = System.getProperty("project.version");
        featuresService.uninstallFeature("rpcrdma4j-nfs4j", version,
                EnumSet.of(FeaturesService.Option.NoAutoRefreshBundles));
        for (Bundle bundle : bundleContext.getBundles()) {
            String name = String.valueOf(bundle.getSymbolicName());
            assertFalse("bundle left installed: " + name,
                    name.equals("org.rpcrdma4j.nfs4j.export") || name.equals("org.dcache.nfs4j.core"));
        }
        assertTrue("no NFSv4 program registered any more", nfs4Programs().isEmpty());
        assertTrue("the served data stays", Files.size(root().resolve("data.bin")) > 0);
    }
}
