package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * NfsOverRdmaTest - the NFSv3 export served over RPC-over-RDMA by the host server (loopback
 * provider, lkey strategy, the NFS upper-layer binding), as the Linux client uses it: MOUNT,
 * LOOKUP, READ with the data placed in a write chunk, WRITE with the data pulled from a read
 * chunk, READDIRPLUS through the reply chunk. The export and its file handles are the same ones
 * the TCP server of {@link ServerTestBase} serves (same directory, same key on disk).
 */
class NfsOverRdmaTest extends ServerTestBase {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private LoopbackFabric fabric;
    private HostServer host;
    private RdmaHostedTransport rdma;
    private RpcRdmaClient rdmaClient;
    private int xid = 0x4000;

    @BeforeEach
    void startRdma() throws Exception {
        fabric = LoopbackFabric.threaded();
        NfsExportService service = NfsExportService.open(List.of(TestServer.export(temp, rules())), temp.resolve("state"));
        host = new HostServer(4);
        host.addProgram(NfsExportService.NFS_PROGRAM, service.nfsProgram());
        host.addProgram(NfsExportService.MOUNT_PROGRAM, service.mountProgram());
        rdma = RdmaHostedTransport.builder(fabric.provider())
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
        rdma.addBinding(new NfsUpperLayerBinding());
        rdma.addStrategy(new LkeyRegistrationStrategy());
        host.addTransport(rdma);
        rdmaClient = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(),
                ClientConfig.builder().progressThread(true).build());
    }

    @AfterEach
    void stopRdma() {
        rdmaClient.close();
        host.close();
        assertEquals(0, fabric.registrationCount(), "nothing left registered");
        fabric.close();
    }

    /** An RPC call with AUTH_SYS credentials of the export's owner. */
    private ByteBuffer call(int program, int procedure, byte[] arguments) {
        ByteBuffer b = ByteBuffer.allocate(64 + arguments.length);
        b.putInt(++xid).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(program).putInt(3).putInt(procedure);
        b.putInt(RpcMessage.AUTH_SYS).putInt(20).putInt(0).putInt(0).putInt(owner).putInt(group).putInt(0);
        b.putInt(RpcMessage.AUTH_NONE).putInt(0);
        b.put(arguments);
        return b.flip();
    }

    private static ByteBuffer results(RpcReply reply) {
        ByteBuffer body = reply.body().duplicate();
        int at = RpcMessage.resultsOffset(body);
        assertTrue(at != RpcMessage.NONE, "an accepted reply with status SUCCESS");
        return body.position(body.position() + at).slice();
    }

    private static byte[] opaque(byte[] data) {
        return ByteBuffer.allocate(4 + (int) Xdr.roundUp(data.length)).putInt(data.length).put(data).array();
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }

    private static byte[] ints(long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4);
        for (long v : values) {
            b.putInt((int) v);
        }
        return b.array();
    }

    private byte[] handle(ByteBuffer results, int at) {
        byte[] fh = new byte[results.getInt(at)];
        results.get(at + 4, fh);
        return fh;
    }

    private byte[] mountAndLookup(String name) throws Exception {
        RpcReply mnt = rdmaClient.call(CallRequest.builder(call(Mount3.PROGRAM, Mount3.MOUNTPROC3_MNT,
                opaque("/export".getBytes(StandardCharsets.UTF_8)))).build(), TIMEOUT);
        ByteBuffer m = results(mnt);
        assertEquals(0, m.getInt(0), "MNT3_OK");
        byte[] rootHandle = handle(m, 4);
        assertArrayEquals(root, rootHandle, "the same root handle as over TCP");
        RpcReply lookup = rdmaClient.call(CallRequest.builder(call(Nfs3.PROGRAM, Nfs3.NFSPROC3_LOOKUP,
                concat(opaque(rootHandle), opaque(name.getBytes(StandardCharsets.UTF_8))))).build(), TIMEOUT);
        ByteBuffer l = results(lookup);
        assertEquals(Nfs3.NFS3_OK, l.getInt(0), "LOOKUP " + name);
        return handle(l, 4);
    }

    @Test
    void readPlacesTheDataInTheWriteChunk() throws Exception {
        byte[] content = new byte[(1 << 20) + 3];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 13 + (i >> 10));
        }
        Files.write(exportDir.resolve("big"), content);
        byte[] fh = mountAndLookup("big");
        // As the Linux client does: READs of rsize (the server's rtmax, 256 KiB here), each offering a write chunk.
        int rsize = 256 * 1024;
        ByteBuffer assembled = ByteBuffer.allocate(content.length);
        int reads = 0;
        while (assembled.hasRemaining()) {
            RpcReply read = rdmaClient.call(CallRequest.builder(call(Nfs3.PROGRAM, Nfs3.NFSPROC3_READ,
                    concat(opaque(fh), ints(0, assembled.position(), rsize)))).writeChunk(rsize).build(), TIMEOUT);
            assertEquals(RpcRdma.RDMA_MSG, read.proc());
            ByteBuffer r = results(read);
            assertEquals(Nfs3.NFS3_OK, r.getInt(0));
            ByteBuffer data = read.writeChunk(0);
            assertTrue(data.remaining() > 0, "READ data went by RDMA WRITE");
            assertTrue(read.body().remaining() < 200, "only the reduced reply travels inline");
            assembled.put(data.duplicate());
            reads++;
        }
        assertArrayEquals(content, assembled.array(), "1 MiB + 3 byte-exact");
        assertEquals(5, reads, "four full reads and the 3-byte tail (no XDR round-up in the write chunk)");
        assertEquals(5, rdma.statistics().get(Counter.REPLIES_WRITE_CHUNK));
    }

    @Test
    void writeTakesTheDataFromAReadChunk() throws Exception {
        Files.write(exportDir.resolve("target"), new byte[0]);
        Files.setPosixFilePermissions(exportDir.resolve("target"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        byte[] fh = mountAndLookup("target");
        byte[] data = new byte[200_001];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 3);
        }
        byte[] head = concat(opaque(fh), ints(0, 0, data.length, Nfs3.FILE_SYNC));
        ByteBuffer message = call(Nfs3.PROGRAM, Nfs3.NFSPROC3_WRITE, concat(head, opaque(data)));
        int dataOffset = message.remaining() - (int) Xdr.roundUp(data.length);
        RpcReply write;
        try {
            write = rdmaClient.call(CallRequest.builder(message).readChunk(dataOffset, data.length).build(), TIMEOUT);
        } catch (java.io.IOException e) {
            throw new AssertionError("WRITE refused; transport counters " + rdma.statistics(), e);
        }
        ByteBuffer w = results(write);
        assertEquals(Nfs3.NFS3_OK, w.getInt(0), "WRITE");
        assertArrayEquals(data, Files.readAllBytes(exportDir.resolve("target")), "byte-exact on disk");
        assertTrue(rdma.statistics().get(Counter.READS) >= 1, "the data came by RDMA READ");
    }

    @Test
    void writesOfEverySizeThroughAReadChunkLandByteExact() throws Exception {
        // A WRITE's data in a read chunk, its call decoded across its pieces (inline head, READ
        // sink): sizes from a byte to 64 KiB, rising, around 9 KiB of call body too (where a copy
        // into one buffer was tried, session 34: slower on a real CPU, reverted); each at its own
        // offset of the file, which must then hold every byte.
        Files.write(exportDir.resolve("target"), new byte[0]);
        Files.setPosixFilePermissions(exportDir.resolve("target"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        byte[] fh = mountAndLookup("target");
        int bodyOf9KiB = 8192 + 1024;
        int dataOffset = call(Nfs3.PROGRAM, Nfs3.NFSPROC3_WRITE, concat(opaque(fh), ints(0, 0, 0, Nfs3.FILE_SYNC),
                ints(0))).remaining();
        int atLimit = bodyOf9KiB - dataOffset;
        ByteBuffer expected = ByteBuffer.allocate(1 << 20);
        long offset = 0;
        long reads = rdma.statistics().get(Counter.READS);
        for (int n : new int[] {1, 3, 4096, atLimit - 4, atLimit, atLimit + 1, atLimit + 4, 65536}) {
            byte[] data = new byte[n];
            for (int i = 0; i < n; i++) {
                data[i] = (byte) (i * 7 + n);
            }
            byte[] head = concat(opaque(fh), ints(offset >>> 32, offset, n, Nfs3.FILE_SYNC));
            ByteBuffer message = call(Nfs3.PROGRAM, Nfs3.NFSPROC3_WRITE, concat(head, opaque(data)));
            RpcReply write = rdmaClient.call(CallRequest.builder(message).readChunk(dataOffset, n).build(), TIMEOUT);
            ByteBuffer w = results(write);
            assertEquals(Nfs3.NFS3_OK, w.getInt(0), "WRITE of " + n + " bytes");
            expected.put((int) offset, data);
            offset += n;
        }
        byte[] onDisk = Files.readAllBytes(exportDir.resolve("target"));
        assertArrayEquals(Arrays.copyOf(expected.array(), (int) offset), onDisk, "every WRITE byte-exact on disk");
        assertTrue(rdma.statistics().get(Counter.READS) >= reads + 8, "each WRITE's data came by RDMA READ");
    }

    @Test
    void aLargeDirectoryListingComesThroughTheReplyChunk() throws Exception {
        Files.createDirectory(exportDir.resolve("many"));
        for (int i = 0; i < 500; i++) {
            Files.write(exportDir.resolve("many").resolve("entry-" + i), new byte[0]);
        }
        byte[] dir = mountAndLookup("many");
        RpcReply listing = rdmaClient.call(CallRequest.builder(call(Nfs3.PROGRAM, Nfs3.NFSPROC3_READDIRPLUS,
                concat(opaque(dir), ints(0, 0, 0, 0, 32768, 65536)))).replyChunk(128 * 1024).build(), TIMEOUT);
        assertEquals(RpcRdma.RDMA_NOMSG, listing.proc(), "too large for inline");
        ByteBuffer r = results(listing);
        assertEquals(Nfs3.NFS3_OK, r.getInt(0));
        String text = StandardCharsets.ISO_8859_1.decode(r.duplicate()).toString();
        assertTrue(text.contains("entry-0") && text.contains("entry-1"), "entries are listed");
    }
}
