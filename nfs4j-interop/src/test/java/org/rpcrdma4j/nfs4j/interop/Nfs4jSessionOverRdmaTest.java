package org.rpcrdma4j.nfs4j.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.dcache.nfs.ExportFile;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.ClientCB;
import org.dcache.nfs.v4.CompoundBuilder;
import org.dcache.nfs.v4.MDSOperationExecutor;
import org.dcache.nfs.v4.NFSServerV41;
import org.dcache.nfs.v4.xdr.CB_COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4args;
import org.dcache.nfs.v4.xdr.CREATE_SESSION4resok;
import org.dcache.nfs.v4.xdr.EXCHANGE_ID4resok;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.nfs_cb_opnum4;
import org.dcache.nfs.v4.xdr.nfs_fh4;
import org.dcache.nfs.v4.xdr.nfs_opnum4;
import org.dcache.nfs.v4.xdr.state_protect_how4;
import org.dcache.nfs.v4.xdr.stateid4;
import org.dcache.nfs.v4.xdr.uint32_t;
import org.dcache.nfs.vfs.VirtualFileSystem;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * Nfs4jSessionOverRdmaTest - dCache nfs4j's NFSv4.1 server ({@link NFSServerV41}, unchanged),
 * served by the host server over RPC-over-RDMA on the loopback fabric, set up as the Linux client
 * sets up a session: EXCHANGE_ID, then CREATE_SESSION asking for the back channel on this
 * connection (CREATE_SESSION4_FLAG_CONN_BACK_CHAN). nfs4j answers that only after it has pinged
 * the client with CB_NULL over {@code getPeerTransport()}, which over RDMA is the connection's
 * back channel (RFC 8167): the CB_NULL must reach the client's callback program and its reply must
 * come back while the CREATE_SESSION is still running on a worker. Then SEQUENCE on the new
 * session, DESTROY_SESSION and DESTROY_CLIENTID; and a delegation recall (CB_COMPOUND with
 * CB_SEQUENCE and CB_RECALL) sent by nfs4j's callback client, as its OPEN sends it when a
 * conflicting open meets a delegation, arriving whole at the client's callback program.
 *
 * <p>No operation here touches a file system: the server's {@link VirtualFileSystem} fails any
 * call made to it, so the test would show if one were.
 */
class Nfs4jSessionOverRdmaTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int NFS4_PROGRAM = nfs4_prot.NFS4_PROGRAM;
    private static final int NFS_V4 = nfs4_prot.NFS_V4;
    private static final int NFSPROC4_COMPOUND = 1;
    /** The callback program number the client names in CREATE_SESSION (CompoundBuilder's). */
    private static final int CB_PROGRAM = 123;
    private static final int CB_COMPOUND = 1;

    private LoopbackFabric fabric;
    private HostServer host;
    private RdmaHostedTransport rdma;
    private RpcRdmaClient client;
    private NFSServerV41 nfs4;
    private final List<int[]> backwardCalls = new CopyOnWriteArrayList<>();
    /** The arguments of every CB_COMPOUND the client received, decoded with nfs4j's XDR types. */
    private final List<CB_COMPOUND4args> callbackCompounds = new CopyOnWriteArrayList<>();
    private int xid = 0x7000;

    @BeforeEach
    void start() throws Exception {
        fabric = LoopbackFabric.threaded();
        VirtualFileSystem noFileSystem = (VirtualFileSystem) Proxy.newProxyInstance(
                VirtualFileSystem.class.getClassLoader(), new Class<?>[] {VirtualFileSystem.class},
                (proxy, method, arguments) -> {
                    throw new UnsupportedOperationException("no file system in this test: " + method.getName());
                });
        ExportFile exports = new ExportFile(new java.io.StringReader("/ 127.0.0.1(rw,no_root_squash)\n"));
        nfs4 = new NFSServerV41.Builder()
                .withVfs(noFileSystem)
                .withOperationExecutor(new MDSOperationExecutor())
                .withExportTable(exports)
                .build();
        host = new HostServer(4);
        host.addProgram(new OncRpcProgram(NFS4_PROGRAM, NFS_V4), nfs4);
        rdma = RdmaHostedTransport.builder(fabric.provider())
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
        rdma.addStrategy(new LkeyRegistrationStrategy());
        host.addTransport(rdma);
        client = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).backchannel(this::answerCallback, 2).build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        host.close();
        assertEquals(0, fabric.registrationCount(), "nothing left registered");
        fabric.close();
    }

    /**
     * The client's callback program: records (program, version, procedure), decodes CB_COMPOUND's
     * arguments, and answers SUCCESS: no results for CB_NULL, for CB_COMPOUND status NFS4_OK with
     * an empty tag and no operation results.
     */
    private ByteBuffer answerCallback(ByteBuffer call) throws Exception {
        int callXid = call.getInt(0);
        int procedure = call.getInt(20);
        backwardCalls.add(new int[] {call.getInt(12), call.getInt(16), procedure});
        if (procedure == CB_COMPOUND) {
            byte[] bytes = new byte[call.remaining()];
            call.duplicate().get(bytes);
            int credentialLength = call.getInt(28);
            int verifierAt = 32 + ((credentialLength + 3) & ~3);
            int argumentsAt = verifierAt + 8 + ((call.getInt(verifierAt + 4) + 3) & ~3);
            Xdr in = new Xdr(bytes);
            in.beginDecoding();
            for (int i = 0; i < argumentsAt / 4; i++) {
                in.xdrDecodeInt();
            }
            CB_COMPOUND4args arguments = new CB_COMPOUND4args();
            arguments.xdrDecode(in);
            callbackCompounds.add(arguments);
        }
        // xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE of length 0, SUCCESS (+ CB_COMPOUND4res).
        ByteBuffer reply = ByteBuffer.allocate(36).putInt(callXid).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0);
        if (procedure == CB_COMPOUND) {
            reply.putInt(nfsstat.NFS_OK).putInt(0).putInt(0);
        }
        return reply.flip();
    }

    /** Sends one COMPOUND (AUTH_SYS as root) and returns its decoded result. */
    private COMPOUND4res compound(COMPOUND4args args) throws Exception {
        Xdr xdr = new Xdr(64 * 1024);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(++xid);
        xdr.xdrEncodeInt(0); // CALL
        xdr.xdrEncodeInt(2); // RPC version
        xdr.xdrEncodeInt(NFS4_PROGRAM);
        xdr.xdrEncodeInt(NFS_V4);
        xdr.xdrEncodeInt(NFSPROC4_COMPOUND);
        // AUTH_SYS: stamp, machine name "", uid 0, gid 0, no groups (20 bytes); verifier AUTH_NONE.
        xdr.xdrEncodeInt(1);
        xdr.xdrEncodeInt(20);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        args.xdrEncode(xdr);
        xdr.endEncoding();
        ByteBuffer message = xdr.asBuffer().toByteBuffer();
        RpcReply reply = client.call(CallRequest.builder(message).build(), TIMEOUT);
        ByteBuffer body = reply.body().duplicate();
        byte[] bytes = new byte[body.remaining()];
        body.get(bytes);
        ByteBuffer view = ByteBuffer.wrap(bytes);
        assertEquals(xid, view.getInt(0), "the reply's xid");
        assertEquals(1, view.getInt(4), "REPLY");
        assertEquals(0, view.getInt(8), "MSG_ACCEPTED");
        int verifierLength = view.getInt(16);
        int acceptStatAt = 20 + ((verifierLength + 3) & ~3);
        assertEquals(0, view.getInt(acceptStatAt), "SUCCESS");
        Xdr in = new Xdr(bytes);
        in.beginDecoding();
        for (int i = 0; i < (acceptStatAt + 4) / 4; i++) {
            in.xdrDecodeInt();
        }
        COMPOUND4res result = new COMPOUND4res();
        result.xdrDecode(in);
        in.endDecoding();
        return result;
    }

    /** EXCHANGE_ID for a new client owner; its result. */
    private EXCHANGE_ID4resok exchangeId(String owner) throws Exception {
        COMPOUND4res exchange = compound(new CompoundBuilder().withMinorversion(1)
                .withExchangeId("rpcrdma4j.org", "Nfs4jSessionOverRdmaTest", owner + "-" + System.nanoTime(),
                        0, state_protect_how4.SP4_NONE)
                .withTag("exchange_id").build());
        assertEquals(nfsstat.NFS_OK, exchange.status, "EXCHANGE_ID");
        return exchange.resarray.get(0).opexchange_id.eir_resok4;
    }

    /** CREATE_SESSION asking for the back channel on this connection; its result. */
    private CREATE_SESSION4resok createSessionWithBackChannel(EXCHANGE_ID4resok exchanged) throws Exception {
        COMPOUND4args create = new CompoundBuilder().withMinorversion(1)
                .withCreatesession(exchanged.eir_clientid, exchanged.eir_sequenceid)
                .withTag("create_session").build();
        create.argarray[0].opcreate_session.csa_flags = new uint32_t(nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
        COMPOUND4res created = compound(create);
        assertEquals(nfsstat.NFS_OK, created.status, "CREATE_SESSION");
        return created.resarray.get(0).opcreate_session.csr_resok4;
    }

    @Test
    void aSessionWithItsBackChannelOnTheRdmaConnection() throws Exception {
        EXCHANGE_ID4resok exchanged = exchangeId("client");
        CREATE_SESSION4resok session = createSessionWithBackChannel(exchanged);
        assertNotEquals(0, session.csr_flags.value & nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
                "nfs4j accepted the back channel on this connection (its CB_NULL was answered)");
        assertEquals(1, backwardCalls.size(), "one backward call before CREATE_SESSION was answered");
        assertArrayEquals(new int[] {CB_PROGRAM, 1, 0}, backwardCalls.get(0),
                "CB_NULL: the session's callback program, version 1, procedure 0");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_CALLS) >= 1, "counted as sent over the back channel");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_REPLIES) >= 1, "and its reply as received");

        COMPOUND4res sequenced = compound(new CompoundBuilder().withMinorversion(1)
                .withSequence(false, session.csr_sessionid, 0, 0, 0)
                .withTag("sequence").build());
        assertEquals(nfsstat.NFS_OK, sequenced.status, "SEQUENCE on the new session");

        COMPOUND4res destroyed = compound(new CompoundBuilder().withMinorversion(1)
                .withDestroysession(session.csr_sessionid).withTag("destroy_session").build());
        assertEquals(nfsstat.NFS_OK, destroyed.status, "DESTROY_SESSION");
        COMPOUND4res gone = compound(new CompoundBuilder().withMinorversion(1)
                .withDestroyclientid(exchanged.eir_clientid).withTag("destroy_clientid").build());
        assertEquals(nfsstat.NFS_OK, gone.status, "DESTROY_CLIENTID");
        assertEquals(nfs_opnum4.OP_DESTROY_CLIENTID, gone.resarray.get(0).resop);
    }

    @Test
    void aClientThatNeverAnswersItsCallbackGetsASessionWithoutBackChannel() throws Exception {
        client.close();
        // A client whose callback program sends no reply: nfs4j's CB_NULL times out (after 1 s) on
        // the back channel, and the CREATE_SESSION must still be answered, only without the back
        // channel, as over TCP. (A SYSTEM_ERR reply would not do: oncrpc4j's RpcCall takes any
        // accepted reply to a call with void results as success.)
        client = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).backchannel(call -> null, 2).build());
        CREATE_SESSION4resok session = createSessionWithBackChannel(exchangeId("silent"));
        assertEquals(0, session.csr_flags.value & nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
                "no back channel when CB_NULL went unanswered");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_TIMEOUTS) >= 1, "the unanswered CB_NULL timed out");
    }

    @Test
    void aDelegationRecallReachesTheClientOverTheBackChannel() throws Exception {
        EXCHANGE_ID4resok exchanged = exchangeId("recall");
        CREATE_SESSION4resok session = createSessionWithBackChannel(exchanged);
        assertNotEquals(0, session.csr_flags.value & nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN);

        // What nfs4j's OPEN does when a conflicting open meets a read delegation: CB_RECALL through
        // the client's callback channel, here the RDMA connection's back channel. It waits for the
        // reply without a bound, so it runs on its own thread and the test bounds the wait.
        ClientCB callback = nfs4.getStateHandler().getClient(exchanged.eir_clientid).getCB();
        nfs_fh4 handle = new nfs_fh4(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
        stateid4 delegation = new stateid4(new byte[12], 1);
        CompletableFuture<Void> recalled = CompletableFuture.runAsync(() -> {
            try {
                callback.cbDelegationRecall(handle, delegation, false);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        recalled.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertEquals(1, callbackCompounds.size(), "one CB_COMPOUND reached the client");
        CB_COMPOUND4args compound = callbackCompounds.get(0);
        assertEquals(2, compound.argarray.length, "CB_SEQUENCE and CB_RECALL");
        assertEquals(nfs_cb_opnum4.OP_CB_SEQUENCE, compound.argarray[0].argop);
        assertEquals(nfs_cb_opnum4.OP_CB_RECALL, compound.argarray[1].argop);
        assertArrayEquals(handle.value, compound.argarray[1].opcbrecall.fh.value, "the recalled file's handle");
        assertEquals(1, compound.argarray[1].opcbrecall.stateid.seqid, "the recalled delegation's stateid");
        assertArrayEquals(new int[] {CB_PROGRAM, 1, CB_COMPOUND}, backwardCalls.get(backwardCalls.size() - 1));
        assertTrue(rdma.statistics().get(Counter.BACKWARD_REPLIES) >= 2, "CB_NULL's and CB_COMPOUND's replies came back");
    }
}
