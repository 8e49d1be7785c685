package org.rpcrdma4j.nfs4j.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.xdr.COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.OPEN4resok;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.nfs_cb_opnum4;
import org.dcache.nfs.v4.xdr.nfs_fh4;
import org.dcache.nfs.v4.xdr.nfs_opnum4;
import org.dcache.nfs.v4.xdr.open_delegation_type4;
import org.dcache.nfs.v4.xdr.stateid4;
import org.dcache.nfs.v4.xdr.uint32_t;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding;
import org.rpcrdma4j.nfs4j.Nfs4jServers;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * Nfs4jExportOverRdmaTest - the nfs4j export bundle's servers ({@link Nfs4jServers}: nfs4j's
 * NFSv4.1 server on this project's file system) over RPC-over-RDMA on the loopback fabric, with
 * real files: data written through OPEN and WRITE arrives on disk byte for byte and reads back
 * through READ (1 MiB in one call, its data placed by RDMA Write into the write chunk the client
 * offers, as the NFS upper-layer binding says for an NFSv4 COMPOUND); and a read
 * delegation granted to one client is recalled over its RDMA back channel (CB_RECALL) when a
 * second client opens the file for writing, which nfs4j answers NFS4ERR_DELAY meanwhile.
 */
class Nfs4jExportOverRdmaTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path temporary;
    private LoopbackFabric fabric;
    private HostServer host;
    private RdmaHostedTransport rdma;
    private Nfs4jServers servers;
    private Path root;

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectory(temporary.resolve("export"));
        servers = new Nfs4jServers(new Nfs4jServers.Settings(root,
                List.of("/ 127.0.0.1(rw,no_root_squash,insecure)"), temporary.resolve("state"),
                Set.of(Nfs4jServers.Version.NFS4), Duration.ofSeconds(90)));
        fabric = LoopbackFabric.threaded();
        host = new HostServer(4);
        for (Map.Entry<OncRpcProgram, RpcDispatchable> program : servers.programs().entrySet()) {
            host.addProgram(program.getKey(), program.getValue());
        }
        rdma = RdmaHostedTransport.builder(fabric.provider())
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
        rdma.addStrategy(new LkeyRegistrationStrategy());
        rdma.addBinding(new NfsUpperLayerBinding());
        host.addTransport(rdma);
    }

    @AfterEach
    void stop() throws Exception {
        host.close();
        servers.close();
        assertEquals(0, fabric.registrationCount(), "nothing left registered");
        fabric.close();
    }

    /** OPEN (create or not) of a name in the root; returns the OPEN result and the file's handle. */
    private record Opened(OPEN4resok open, nfs_fh4 handle) {
    }

    private Opened open(Nfs41Client client, String name, boolean create, int shareAccess) throws Exception {
        var builder = client.sequenced().withPutrootfh();
        builder = create ? builder.withOpenCreate(name, 0, client.exchanged().eir_clientid, shareAccess)
                : builder.withOpen(name, 0, client.exchanged().eir_clientid, shareAccess);
        COMPOUND4args args = builder.withGetfh().withTag("open").build();
        args.argarray[2].opopen.share_access = new uint32_t(shareAccess);
        COMPOUND4res result = client.compound(args);
        assertEquals(nfsstat.NFS_OK, result.status, "OPEN " + name);
        return new Opened(result.resarray.get(2).opopen.resok4, result.resarray.get(3).opgetfh.resok4.object);
    }

    @Test
    void dataWrittenThroughNfs4jIsOnDiskAndReadsBackWhole() throws Exception {
        byte[] data = new byte[MIB];
        new Random(20261205).nextBytes(data);
        try (Nfs41Client client = Nfs41Client.connect(fabric.provider(), rdma.localAddress(), "writer").mount()) {
            Opened opened = open(client, "data.bin", true,
                    nfs4_prot.OPEN4_SHARE_ACCESS_BOTH | nfs4_prot.OPEN4_SHARE_ACCESS_WANT_NO_DELEG);
            stateid4 stateid = opened.open().stateid;
            for (int offset = 0; offset < MIB; offset += 256 * 1024) {
                COMPOUND4res written = client.compound(client.sequenced().withPutfh(opened.handle())
                        .withWrite(offset, ByteBuffer.wrap(data, offset, 256 * 1024), stateid)
                        .withTag("write").build());
                assertEquals(nfsstat.NFS_OK, written.status, "WRITE at " + offset);
                assertEquals(256 * 1024, written.resarray.get(2).opwrite.resok4.count.value);
            }
            assertArrayEquals(data, Files.readAllBytes(root.resolve("data.bin")), "on disk, byte for byte");

            COMPOUND4res read = client.compound(client.sequenced().withPutfh(opened.handle())
                    .withRead(MIB, 0, stateid).withTag("read").build(), MIB);
            assertEquals(1, client.repliesWithWriteChunk, "the READ data came through the write chunk (RDMA Write)");
            assertEquals(nfsstat.NFS_OK, read.status, "READ");
            ByteBuffer got = read.resarray.get(2).opread.resok4.data;
            byte[] back = new byte[got.remaining()];
            got.get(back);
            assertArrayEquals(data, back, "1 MiB read back whole in one READ");
            assertTrue(read.resarray.get(2).opread.resok4.eof, "and at end of file");

            COMPOUND4res closed = client.compound(client.sequenced().withPutfh(opened.handle())
                    .withClose(stateid, 0).withTag("close").build());
            assertEquals(nfsstat.NFS_OK, closed.status, "CLOSE");
        }
    }

    @Test
    void aReadDelegationIsRecalledOverTheBackChannelWhenAnotherClientOpensForWriting() throws Exception {
        Files.write(root.resolve("shared.txt"), new byte[] {'v', '1'});
        try (Nfs41Client reader = Nfs41Client.connect(fabric.provider(), rdma.localAddress(), "reader").mount();
                Nfs41Client writer = Nfs41Client.connect(fabric.provider(), rdma.localAddress(), "writer").mount()) {
            Opened delegated = open(reader, "shared.txt", false,
                    nfs4_prot.OPEN4_SHARE_ACCESS_READ | nfs4_prot.OPEN4_SHARE_ACCESS_WANT_READ_DELEG);
            assertEquals(open_delegation_type4.OPEN_DELEGATE_READ, delegated.open().delegation.delegation_type,
                    "the reader holds a read delegation");
            stateid4 delegation = delegated.open().delegation.read.stateid;
            int callsBefore = reader.callbackCompounds.size();

            var conflicting = writer.sequenced().withPutrootfh()
                    .withOpen("shared.txt", 0, writer.exchanged().eir_clientid, 0).withTag("conflict").build();
            conflicting.argarray[2].opopen.share_access = new uint32_t(
                    nfs4_prot.OPEN4_SHARE_ACCESS_WRITE | nfs4_prot.OPEN4_SHARE_ACCESS_WANT_NO_DELEG);
            COMPOUND4res refused = writer.compound(conflicting);
            assertEquals(nfsstat.NFSERR_DELAY, refused.status, "the writer waits while the delegation is recalled");

            assertEquals(callsBefore + 1, reader.callbackCompounds.size(), "one CB_COMPOUND reached the reader");
            var recall = reader.callbackCompounds.get(callsBefore);
            assertEquals(nfs_cb_opnum4.OP_CB_SEQUENCE, recall.argarray[0].argop);
            assertEquals(nfs_cb_opnum4.OP_CB_RECALL, recall.argarray[1].argop);
            assertArrayEquals(delegation.other, recall.argarray[1].opcbrecall.stateid.other, "the delegation recalled");
            assertArrayEquals(delegated.handle().value, recall.argarray[1].opcbrecall.fh.value, "of that file");
            assertTrue(rdma.statistics().get(Counter.BACKWARD_REPLIES) >= 3,
                    "two CB_NULLs and the CB_COMPOUND answered over RDMA back channels");

            // The reader returns the delegation, as the Linux client does after CB_RECALL; the writer's retry opens.
            COMPOUND4args returned = reader.sequenced().withPutfh(delegated.handle()).withTag("delegreturn").build();
            var op = new org.dcache.nfs.v4.xdr.nfs_argop4();
            op.argop = nfs_opnum4.OP_DELEGRETURN;
            op.opdelegreturn = new org.dcache.nfs.v4.xdr.DELEGRETURN4args();
            op.opdelegreturn.deleg_stateid = delegation;
            returned.argarray = java.util.Arrays.copyOf(returned.argarray, returned.argarray.length + 1);
            returned.argarray[returned.argarray.length - 1] = op;
            assertEquals(nfsstat.NFS_OK, reader.compound(returned).status, "DELEGRETURN");

            conflicting = writer.sequenced().withPutrootfh()
                    .withOpen("shared.txt", 0, writer.exchanged().eir_clientid, 0).withTag("retry").build();
            conflicting.argarray[2].opopen.share_access = new uint32_t(
                    nfs4_prot.OPEN4_SHARE_ACCESS_WRITE | nfs4_prot.OPEN4_SHARE_ACCESS_WANT_NO_DELEG);
            assertEquals(nfsstat.NFS_OK, writer.compound(conflicting).status, "the writer's retry opens the file");
        }
    }
}
