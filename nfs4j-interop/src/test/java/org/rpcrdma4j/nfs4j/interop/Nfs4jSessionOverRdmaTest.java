package org.rpcrdma4j.nfs4j.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.dcache.nfs.ExportFile;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.ClientCB;
import org.dcache.nfs.v4.CompoundBuilder;
import org.dcache.nfs.v4.MDSOperationExecutor;
import org.dcache.nfs.v4.NFSServerV41;
import org.dcache.nfs.v4.xdr.CB_COMPOUND4args;
import org.dcache.nfs.v4.xdr.CREATE_SESSION4resok;
import org.dcache.nfs.v4.xdr.EXCHANGE_ID4resok;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.nfs_cb_opnum4;
import org.dcache.nfs.v4.xdr.nfs_fh4;
import org.dcache.nfs.v4.xdr.nfs_opnum4;
import org.dcache.nfs.v4.xdr.stateid4;
import org.dcache.nfs.vfs.VirtualFileSystem;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
    private static final int NFS4_PROGRAM = nfs4_prot.NFS4_PROGRAM;
    private static final int NFS_V4 = nfs4_prot.NFS_V4;

    private LoopbackFabric fabric;
    private HostServer host;
    private RdmaHostedTransport rdma;
    private Nfs41Client client;
    private NFSServerV41 nfs4;

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
        client = Nfs41Client.connect(fabric.provider(), rdma.localAddress(), "client");
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

    @Test
    void aSessionWithItsBackChannelOnTheRdmaConnection() throws Exception {
        EXCHANGE_ID4resok exchanged = client.exchangeId();
        CREATE_SESSION4resok session = client.createSessionWithBackChannel();
        assertNotEquals(0, session.csr_flags.value & nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
                "nfs4j accepted the back channel on this connection (its CB_NULL was answered)");
        assertEquals(1, client.backwardCalls.size(), "one backward call before CREATE_SESSION was answered");
        assertArrayEquals(new int[] {Nfs41Client.CB_PROGRAM, 1, 0}, client.backwardCalls.get(0),
                "CB_NULL: the session's callback program, version 1, procedure 0");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_CALLS) >= 1, "counted as sent over the back channel");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_REPLIES) >= 1, "and its reply as received");

        COMPOUND4res sequenced = client.compound(new CompoundBuilder().withMinorversion(1)
                .withSequence(false, session.csr_sessionid, 0, 0, 0)
                .withTag("sequence").build());
        assertEquals(nfsstat.NFS_OK, sequenced.status, "SEQUENCE on the new session");

        COMPOUND4res destroyed = client.compound(new CompoundBuilder().withMinorversion(1)
                .withDestroysession(session.csr_sessionid).withTag("destroy_session").build());
        assertEquals(nfsstat.NFS_OK, destroyed.status, "DESTROY_SESSION");
        COMPOUND4res gone = client.compound(new CompoundBuilder().withMinorversion(1)
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
        client = Nfs41Client.connectSilent(fabric.provider(), rdma.localAddress(), "silent");
        client.exchangeId();
        CREATE_SESSION4resok session = client.createSessionWithBackChannel();
        assertEquals(0, session.csr_flags.value & nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
                "no back channel when CB_NULL went unanswered");
        assertTrue(rdma.statistics().get(Counter.BACKWARD_TIMEOUTS) >= 1, "the unanswered CB_NULL timed out");
    }

    @Test
    void aDelegationRecallReachesTheClientOverTheBackChannel() throws Exception {
        EXCHANGE_ID4resok exchanged = client.exchangeId();
        CREATE_SESSION4resok session = client.createSessionWithBackChannel();
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
        recalled.get(Nfs41Client.TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertEquals(1, client.callbackCompounds.size(), "one CB_COMPOUND reached the client");
        CB_COMPOUND4args compound = client.callbackCompounds.get(0);
        assertEquals(2, compound.argarray.length, "CB_SEQUENCE and CB_RECALL");
        assertEquals(nfs_cb_opnum4.OP_CB_SEQUENCE, compound.argarray[0].argop);
        assertEquals(nfs_cb_opnum4.OP_CB_RECALL, compound.argarray[1].argop);
        assertArrayEquals(handle.value, compound.argarray[1].opcbrecall.fh.value, "the recalled file's handle");
        assertEquals(1, compound.argarray[1].opcbrecall.stateid.seqid, "the recalled delegation's stateid");
        assertArrayEquals(new int[] {Nfs41Client.CB_PROGRAM, 1, Nfs41Client.CB_COMPOUND}, client.backwardCalls.get(client.backwardCalls.size() - 1));
        assertTrue(rdma.statistics().get(Counter.BACKWARD_REPLIES) >= 2, "CB_NULL's and CB_COMPOUND's replies came back");
    }
}
