package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RdmaErrorException;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReplyLatency;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * RdmaHostedTransportTest - the host server serving an oncrpc4j program over RPC-over-RDMA (the
 * loopback provider, driven by the transport's own completion thread, exactly as in Karaf) and over
 * oncrpc4j's TCP, answering the same calls with the same RPC replies; replies of every size class;
 * the reply cache; credits; programs coming and going; an orderly stop.
 */
class RdmaHostedTransportTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int CREDITS = 16;

    private LoopbackFabric fabric;
    private HostServer host;
    private BulkProgram program;
    private OncRpcProgram programKey;
    private RdmaHostedTransport rdma;
    private OncRpcTcpTransport tcp;
    private final List<RpcRdmaClient> clients = new ArrayList<>();
    private final AtomicInteger xids = new AtomicInteger(0x1000);

    @BeforeEach
    void start() throws Exception {
        fabric = LoopbackFabric.threaded();
        host = new HostServer(4);
        program = new BulkProgram();
        programKey = new OncRpcProgram(BulkProgram.PROGRAM, BulkProgram.VERSION);
        host.addProgram(programKey, program);
        rdma = RdmaHostedTransport.builder(fabric.provider())
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .config(TransportConfig.builder().credits(CREDITS).build())
                .build();
        rdma.addBinding(BulkProgram.BINDING);
        tcp = new OncRpcTcpTransport("127.0.0.1", 0);
        host.addTransport(rdma);
        host.addTransport(tcp);
    }

    @AfterEach
    void stop() {
        clients.forEach(RpcRdmaClient::close);
        host.close();
        assertTrue(rdma.isStopped(), "the completion thread ended");
        fabric.close();
    }

    private RpcRdmaClient client() throws Exception {
        return client(ClientConfig.builder().progressThread(true).build());
    }

    private RpcRdmaClient client(ClientConfig config) throws Exception {
        RpcRdmaClient c = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(), config);
        clients.add(c);
        return c;
    }

    private ByteBuffer call(int procedure, byte[] arguments) {
        return RpcWire.call(xids.incrementAndGet(), BulkProgram.PROGRAM, BulkProgram.VERSION, procedure, arguments);
    }

    private byte[] overTcp(ByteBuffer message) throws Exception {
        try (RpcWire.TcpClient c = new RpcWire.TcpClient(tcp.localAddress())) {
            return c.call(message);
        }
    }

    private TransportStatistics stats() {
        return rdma.statistics();
    }

    @Test
    void nullAndEchoGiveTheSameRepliesOverRdmaAndTcp() throws Exception {
        RpcRdmaClient client = client();
        byte[] text = "the same call over two transports".getBytes();
        for (ByteBuffer message : List.of(call(BulkProgram.NULL, new byte[0]), call(BulkProgram.ECHO, RpcWire.opaqueArgument(text)),
                RpcWire.call(xids.incrementAndGet(), 0x2000_0999, 1, 0, new byte[0]))) {
            RpcReply overRdma = client.call(CallRequest.builder(message.duplicate()).build(), TIMEOUT);
            assertEquals(CREDITS, overRdma.credits(), "every reply grants the configured credits");
            byte[] overTcp = overTcp(message.duplicate());
            assertEquals(RpcRdma.RDMA_MSG, overRdma.proc(), "small replies go inline");
            assertArrayEquals(overTcp, RpcWire.whole(overRdma, false), "identical RPC reply");
        }
        assertEquals(1, RpcWire.acceptStatus(overTcp(RpcWire.call(7, 0x2000_0999, 1, 0, new byte[0]))), "PROG_UNAVAIL");
        assertEquals(3, stats().get(Counter.REPLIES_INLINE));
    }

    @Test
    void aCallWhoseCredentialClaims2GiBIsDeniedAuthBadcredAndTheConnectionServesOn() throws Exception {
        // issue #31, D1 (forward): oncrpc4j allocated the credential's claimed length while
        // decoding the header: OutOfMemoryError on the thread serving the call, and no answer.
        RpcRdmaClient client = client();
        int xid = xids.incrementAndGet();
        ByteBuffer hostile = ByteBuffer.allocate(RpcMessage.CALL_FIXED_BYTES + RpcMessage.AUTH_HEAD_BYTES)
                .putInt(xid).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(BulkProgram.PROGRAM)
                .putInt(BulkProgram.VERSION).putInt(BulkProgram.NULL).putInt(RpcMessage.AUTH_NONE).putInt(0x7fff_ffff).flip();
        assertDeniedAuthBadcred(client.call(CallRequest.builder(hostile).build(), TIMEOUT), xid);
        assertEquals(1, host.dispatcher().malformedCalls());
        assertTheNextCallIsServed(client);
    }

    /** A reply to {@code xid}: MSG_DENIED, AUTH_ERROR, AUTH_BADCRED. */
    private static void assertDeniedAuthBadcred(RpcReply denied, int xid) {
        ByteBuffer head = ByteBuffer.wrap(RpcWire.whole(denied, false));
        assertEquals(xid, head.getInt(RpcMessage.XID_OFFSET));
        assertEquals(RpcMessage.MSG_DENIED, head.getInt(RpcMessage.REPLY_STAT_OFFSET), "MSG_DENIED");
        assertEquals(RpcMessage.AUTH_ERROR, head.getInt(RpcMessage.REPLY_BODY_OFFSET), "AUTH_ERROR");
        assertEquals(RpcMessage.AUTH_BADCRED, head.getInt(RpcMessage.REPLY_BODY_OFFSET + Xdr.UNIT_BYTES), "AUTH_BADCRED");
    }

    private void assertTheNextCallIsServed(RpcRdmaClient client) throws Exception {
        RpcReply next = client.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build(), TIMEOUT);
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(next, false)), "the next call is served");
    }

    /**
     * An ECHO whose opaque argument claims 2 GiB - 1 in a message of a few bytes: GARBAGE_ARGS
     * over RDMA and over TCP, nothing allocated for the claim, and the connections serve on.
     * Before, oncrpc4j's Xdr allocated the claim while the program decoded its arguments: an
     * OutOfMemoryError ("Requested array size exceeds VM limit") in the program, SYSTEM_ERR.
     */
    @Test
    void anArgumentClaimingMoreThanTheCallHoldsIsGarbageArgsOverRdmaAndTcp() throws Exception {
        RpcRdmaClient client = client();
        byte[] claim = ByteBuffer.allocate(12).putInt(0x7fff_ffff).putInt(1).putInt(2).array();
        RpcReply overRdma = client.call(CallRequest.builder(call(BulkProgram.ECHO, claim)).build(), TIMEOUT);
        assertEquals(4, RpcWire.acceptStatus(RpcWire.whole(overRdma, false)), "GARBAGE_ARGS over RDMA");
        assertEquals(4, RpcWire.acceptStatus(overTcp(call(BulkProgram.ECHO, claim))), "GARBAGE_ARGS over TCP");
        assertTheNextCallIsServed(client);
    }

    /**
     * An AUTH_TLS probe (RFC 9289) over RDMA: denied AUTH_BADCRED, since RPC-over-RDMA has no TLS.
     * Before, oncrpc4j's startTLS() threw an IllegalStateException from our transport: the call
     * was dropped unanswered, with an ERROR and a stack trace per call.
     */
    @Test
    void anAuthTlsProbeOverRdmaIsDeniedAuthBadcred() throws Exception {
        RpcRdmaClient client = client();
        for (int i = 0; i < 3; i++) {
            int xid = xids.incrementAndGet();
            ByteBuffer probe = RpcMessage.putCallHeader(ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES), xid,
                    BulkProgram.PROGRAM, BulkProgram.VERSION, BulkProgram.NULL).putInt(RpcMessage.CREDENTIAL_OFFSET, 7).flip();
            assertDeniedAuthBadcred(client.call(CallRequest.builder(probe).build(), TIMEOUT), xid);
        }
        assertTheNextCallIsServed(client);
    }

    @Test
    void aDdpItemGoesToTheWriteChunkAndTheRestInline() throws Exception {
        RpcRdmaClient client = client();
        int n = (1 << 20) + 3;
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
        RpcReply reply = client.call(CallRequest.builder(message.duplicate()).writeChunk(2 << 20).build(), TIMEOUT);
        assertEquals(RpcRdma.RDMA_MSG, reply.proc());
        assertEquals(n, reply.writeChunk(0).remaining(), "the write list is echoed with the bytes written, no round-up");
        assertTrue(reply.body().remaining() < 100, "only the reduced message travels inline: " + reply.body().remaining());
        assertArrayEquals(overTcp(message.duplicate()), RpcWire.whole(reply, true), "byte-exact after reassembly");
        assertEquals(1, stats().get(Counter.REPLIES_WRITE_CHUNK));
        assertTrue(stats().get(Counter.WRITE_BYTES) >= n);
    }

    @Test
    void largeRepliesReuseTheTransportsBuffersInsteadOfAllocatingOnePerReply() throws Exception {
        // A 1 MiB reply outgrows its pending reply's memory: oncrpc4j's own growth allocates a new
        // 1 MiB heap buffer per reply (nearly all a server allocates in sequential reads); the
        // reply must continue in a buffer the transport lends and takes back.
        RpcRdmaClient client = client();
        int n = 1 << 20;
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
        byte[] expected = overTcp(message.duplicate());
        for (int i = 0; i < 20; i++) {
            RpcReply reply = client.call(CallRequest.builder(message.duplicate()).writeChunk(2 << 20).build(), TIMEOUT);
            assertArrayEquals(expected, RpcWire.whole(reply, true), "reply " + i + " byte-exact");
        }
        assertEquals(20, stats().get(Counter.REPLIES_WRITE_CHUNK));
        assertEquals(1, stats().get(Counter.LARGE_REPLY_BUFFERS_ALLOCATED),
                "one call at a time: one buffer, reused by every later reply");
    }

    @Test
    void aPageSizedItemIsEncodedInThePendingRepliesOwnMemory() throws Exception {
        // A 4 KiB NFS READ's reply: its data goes to the write chunk, the rest inline. It fits
        // the pending reply's own memory with its header, so no large buffer is borrowed for it
        // (one used to be taken from the shared pool and given back per READ).
        RpcRdmaClient client = client();
        int n = 4096;
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
        byte[] expected = overTcp(message.duplicate());
        for (int i = 0; i < 5; i++) {
            RpcReply reply = client.call(CallRequest.builder(message.duplicate()).writeChunk(n).build(), TIMEOUT);
            assertEquals(n, reply.writeChunk(0).remaining(), "reply " + i + ": the item went to the write chunk");
            assertArrayEquals(expected, RpcWire.whole(reply, true), "reply " + i + " byte-exact");
        }
        assertEquals(5, stats().get(Counter.REPLIES_WRITE_CHUNK));
        assertEquals(0, stats().get(Counter.LARGE_REPLY_BUFFERS_ALLOCATED), "no large buffer for a 4 KiB item");
    }

    @Test
    void anItemOfAPageOrLessIsWrittenFromItsSendBufferAndALargerOneFromStaging() throws Exception {
        // The item's RDMA WRITE reads the room after the SEND's own buffer when the item fits it
        // (4 KiB: an NFS READ of a page), so such replies take no staging; one byte more and the
        // reply's data goes through the loop's staging slab as before. Several in flight at once,
        // each from its own send buffer, every one byte-exact.
        RpcRdmaClient client = client();
        int room = 4096; // SendQueue.ITEM_ROOM
        for (int n : new int[] {1, 4093, room, room + 1, 3 * room}) {
            long fromSendBuffer = stats().get(Counter.REPLIES_WRITTEN_FROM_SEND_BUFFER);
            long writeChunk = stats().get(Counter.REPLIES_WRITE_CHUNK);
            List<byte[]> expected = new ArrayList<>();
            List<CompletableFuture<RpcReply>> inFlight = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
                expected.add(overTcp(message.duplicate()));
                inFlight.add(client.call(CallRequest.builder(message).writeChunk((int) Xdr.roundUp(n)).build()));
            }
            for (int i = 0; i < inFlight.size(); i++) {
                RpcReply reply = inFlight.get(i).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                assertEquals(n, reply.writeChunk(0).remaining(), n + ": the item went to the write chunk");
                assertArrayEquals(expected.get(i), RpcWire.whole(reply, true), n + " reply " + i + " byte-exact");
            }
            assertEquals(writeChunk + 8, stats().get(Counter.REPLIES_WRITE_CHUNK), n + ": every reply by its write chunk");
            assertEquals(fromSendBuffer + (n <= room ? 8 : 0),
                    stats().get(Counter.REPLIES_WRITTEN_FROM_SEND_BUFFER), n + " bytes: from the send buffer or from staging");
        }
    }

    @Test
    void aReplyChunkReplyOfAPageOrLessIsWrittenFromItsSendBufferAndALargerOneFromStaging() throws Exception {
        // A client that receives 1 KiB inline gets longer replies through its reply chunk: the
        // whole reply is written there, from the room after the SEND's buffer when it fits in a
        // page (the same room a small DDP item uses), else from staging; all byte-exact.
        RpcRdmaClient client = client(ClientConfig.builder().progressThread(true).receiveInlineSize(1024).build());
        for (int n : new int[] {2000, 4000, 4096, 8000}) {
            long fromSendBuffer = stats().get(Counter.REPLIES_WRITTEN_FROM_SEND_BUFFER);
            long replyChunk = stats().get(Counter.REPLIES_REPLY_CHUNK);
            ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
            byte[] expected = overTcp(message.duplicate());
            RpcReply reply = client.call(CallRequest.builder(message).replyChunk(16 * 1024).build(), TIMEOUT);
            assertEquals(RpcRdma.RDMA_NOMSG, reply.proc(), n + ": through the reply chunk");
            assertArrayEquals(expected, RpcWire.whole(reply, false), n + ": byte-exact");
            assertEquals(replyChunk + 1, stats().get(Counter.REPLIES_REPLY_CHUNK));
            boolean fits = expected.length <= 4096; // SendQueue.ITEM_ROOM
            assertEquals(fromSendBuffer + (fits ? 1 : 0), stats().get(Counter.REPLIES_WRITTEN_FROM_SEND_BUFFER),
                    n + " (a reply of " + expected.length + " bytes): from the send buffer or from staging");
        }
    }

    @Test
    void repliesSizedUpFrontFromTheWriteChunkAreByteExact() throws Exception {
        // A write chunk of at most 1 MiB for a DDP-eligible reply: its memory is taken for the
        // item before the program encodes it (CallXdr.takeLargerUpFront), the reply grows nothing.
        RpcRdmaClient client = client();
        for (int n : new int[] {4096, 64 * 1024 + 1, 1 << 20}) {
            ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
            byte[] expected = overTcp(message.duplicate());
            for (int i = 0; i < 3; i++) {
                RpcReply reply = client.call(CallRequest.builder(message.duplicate()).writeChunk((int) Xdr.roundUp(n)).build(),
                        TIMEOUT);
                assertEquals(n, reply.writeChunk(0).remaining(), n + ": the item went to the write chunk");
                assertArrayEquals(expected, RpcWire.whole(reply, true), n + " reply " + i + " byte-exact");
            }
        }
    }

    @Test
    void aWriteChunkTooSmallForTheItemIsReturnedUnusedAndTheReplyTakesTheReplyChunk() throws Exception {
        RpcRdmaClient client = client();
        int n = 64 * 1024;
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(n));
        RpcReply reply = client.call(CallRequest.builder(message.duplicate()).writeChunk(1024).replyChunk(128 * 1024).build(),
                TIMEOUT);
        assertEquals(RpcRdma.RDMA_NOMSG, reply.proc());
        assertEquals(0, reply.writeChunk(0).remaining(), "unused write chunk comes back with zero length");
        assertArrayEquals(overTcp(message.duplicate()), RpcWire.whole(reply, true));
    }

    @Test
    void aClientAllowingRemoteInvalidationGetsSendWithInvalidateOfItsOneKey() throws Exception {
        RpcRdmaClient client = client(ClientConfig.builder().progressThread(true).remoteInvalidation(true).build());
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(10_000));
        RpcReply reply;
        try {
            reply = client.call(CallRequest.builder(message.duplicate()).writeChunk(16384).build(), TIMEOUT);
        } catch (java.io.IOException e) {
            throw new AssertionError("server " + stats() + " client " + client.statistics(), e);
        }
        assertTrue(reply.invalidatedKey().isPresent(), "the write chunk's key was invalidated by the SEND");
        assertArrayEquals(overTcp(message.duplicate()), RpcWire.whole(reply, true));
        assertEquals(1, stats().get(Counter.SEND_WITH_INVALIDATE));
        RpcReply plain = client().call(CallRequest.builder(message.duplicate()).writeChunk(16384).build(), TIMEOUT);
        assertFalse(plain.invalidatedKey().isPresent(), "not for a client that did not allow it");
    }

    @Test
    void largeRepliesWithoutADdpItemTakeTheReplyChunk() throws Exception {
        RpcRdmaClient client = client();
        byte[] data = new byte[100_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = BulkProgram.pattern(i * 3);
        }
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(100_000));
        RpcReply reply = client.call(CallRequest.builder(message.duplicate()).replyChunk(128 * 1024).build(), TIMEOUT);
        assertEquals(RpcRdma.RDMA_NOMSG, reply.proc(), "too large for inline: RDMA_NOMSG through the reply chunk");
        assertTrue(reply.viaReplyChunk());
        assertArrayEquals(overTcp(message.duplicate()), RpcWire.whole(reply, false));
        assertEquals(1, stats().get(Counter.REPLIES_REPLY_CHUNK));
    }

    @Test
    void aReplyThatFitsNowhereIsAnsweredWithErrChunkAndTheConnectionGoesOn() throws Exception {
        RpcRdmaClient client = client();
        ByteBuffer message = call(BulkProgram.BULK, RpcWire.intArgument(100_000));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> client.call(CallRequest.builder(message).build()).get(30, TimeUnit.SECONDS));
        RdmaErrorException error = (RdmaErrorException) e.getCause();
        assertEquals(RpcRdma.ERR_CHUNK, error.errorCode());
        assertEquals(1, stats().get(Counter.REPLIES_TOO_LARGE));
        RpcReply after = client.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build(), TIMEOUT);
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(after, false)));
    }

    /**
     * What each kind of reply costs the device besides its data (issue #33): posts to the send
     * queue (doorbells), posts to the receive queue, and completions, per RPC over 64 calls one
     * at a time. Every reply is one post: its RDMA WRITEs chained before its SEND. Completions per
     * RPC: the call's receive and the SEND's, whatever the reply's kind: the WRITEs are unsignaled
     * and the SEND's completion retires them. Receives go back in chains of repostBatch (8).
     */
    @Test
    void eachReplyIsOnePostAndItsCompletionsAreCountedPerKind() throws Exception {
        RpcRdmaClient client = client();
        int calls = 64;
        byte[] small = RpcWire.opaqueArgument("inline".getBytes());
        List<String> report = new ArrayList<>();
        // completions per RPC: the call's receive and the reply's SEND, which retires the reply's
        // unsignaled RDMA WRITEs with it
        int inlineCompletions = 2;
        int writeChunkCompletions = 2;
        int replyChunkCompletions = 2;
        long[] inline = perRpc(client, calls, report, "inline", inlineCompletions,
                () -> CallRequest.builder(call(BulkProgram.ECHO, small)).build());
        long[] writeChunk = perRpc(client, calls, report, "write chunk (64 KiB, one segment)", writeChunkCompletions,
                () -> CallRequest.builder(call(BulkProgram.BULK, RpcWire.intArgument(64 << 10))).writeChunk(64 << 10).build());
        long[] replyChunk = perRpc(client, calls, report, "reply chunk (100,000 B, one segment)", replyChunkCompletions,
                () -> CallRequest.builder(call(BulkProgram.BULK, RpcWire.intArgument(100_000))).replyChunk(128 << 10).build());
        System.out.println("Per RPC (send posts, receive posts, completions) x " + calls + ": " + report);
        assertEquals(List.of((long) calls, (long) inlineCompletions * calls), List.of(inline[0], inline[2]), "inline: " + report);
        assertEquals(List.of((long) calls, (long) writeChunkCompletions * calls), List.of(writeChunk[0], writeChunk[2]),
                "write chunk: " + report);
        assertEquals(List.of((long) calls, (long) replyChunkCompletions * calls), List.of(replyChunk[0], replyChunk[2]),
                "reply chunk: " + report);
        for (long[] kind : List.of(inline, writeChunk, replyChunk)) {
            assertTrue(kind[1] <= calls / 8 + 1, "receives reposted in batches of 8: " + report);
            // the counters the lab reads over real verbs: one SEND completion per reply, no WRITE's
            // own, no READ chain among these posts
            assertEquals(List.of((long) calls, 0L), List.of(kind[3], kind[4]), "send-side completions, READ posts: " + report);
        }
    }

    @Test
    void everyPostedReplyIsInItsConnectionsLatencyHistogram() throws Exception {
        RpcRdmaClient first = client();
        RpcRdmaClient second = client();
        byte[] small = RpcWire.opaqueArgument("timed".getBytes());
        int calls = 0;
        for (int i = 0; i < 40; i++, calls++) {
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(first.call(
                    CallRequest.builder(call(BulkProgram.ECHO, small)).build(), TIMEOUT), true)));
        }
        for (int i = 0; i < 5; i++, calls++) {
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(first.call(CallRequest.builder(
                    call(BulkProgram.BULK, RpcWire.intArgument(64 << 10))).writeChunk(64 << 10).build(), TIMEOUT), true)));
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(first.call(CallRequest.builder(
                    call(BulkProgram.BULK, RpcWire.intArgument(100_000))).replyChunk(128 << 10).build(), TIMEOUT), true)));
            calls++;
        }
        for (int i = 0; i < 7; i++) {
            second.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build(), TIMEOUT);
        }
        List<RdmaConnection> connections = rdma.connections();
        assertEquals(2, connections.size());
        // Recorded before the SEND is posted, so a reply the client holds is counted.
        List<Long> counts = new ArrayList<>();
        for (RdmaConnection c : connections) {
            ReplyLatency latency = c.replyLatency();
            counts.add(latency.count());
            assertEquals(c.statistics().get(Counter.SENDS), latency.count(), "one per posted reply: " + latency);
            assertTrue(latency.p50Micros() >= 1 && latency.p50Micros() <= latency.p90Micros()
                    && latency.p90Micros() <= latency.p99Micros() && latency.p99Micros() <= latency.p999Micros()
                    && latency.p999Micros() <= latency.maxMicros(), latency.toString());
        }
        counts.sort(null);
        assertEquals(List.of(7L, (long) calls), counts, "each connection counts its own replies");
    }

    /**
     * Runs calls one at a time and returns the deltas of SEND_POSTS, RECEIVE_POSTS and COMPLETIONS,
     * after waiting (up to 10 s) for the {@code completionsPerRpc} completions of every RPC sent.
     */
    private long[] perRpc(RpcRdmaClient client, int calls, List<String> report, String kind, int completionsPerRpc,
                          java.util.function.Supplier<CallRequest> request) throws Exception {
        long posts = stats().get(Counter.SEND_POSTS);
        long receivePosts = stats().get(Counter.RECEIVE_POSTS);
        long completions = stats().get(Counter.COMPLETIONS);
        long sends = stats().get(Counter.SENDS);
        long sendSide = stats().get(Counter.SEND_COMPLETIONS) + stats().get(Counter.WRITE_COMPLETIONS);
        long readPosts = stats().get(Counter.READ_POSTS);
        for (int i = 0; i < calls; i++) {
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(client.call(request.get(), TIMEOUT), true)), kind);
        }
        // the last SEND's completion may be polled after its reply reached the client
        long expected = completions + (stats().get(Counter.SENDS) - sends) * completionsPerRpc;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (stats().get(Counter.COMPLETIONS) < expected && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        long[] delta = {stats().get(Counter.SEND_POSTS) - posts, stats().get(Counter.RECEIVE_POSTS) - receivePosts,
            stats().get(Counter.COMPLETIONS) - completions,
            stats().get(Counter.SEND_COMPLETIONS) + stats().get(Counter.WRITE_COMPLETIONS) - sendSide,
            stats().get(Counter.READ_POSTS) - readPosts};
        report.add(String.format("%s: %.2f, %.2f, %.2f (send side %.2f)", kind, (double) delta[0] / calls,
                (double) delta[1] / calls, (double) delta[2] / calls, (double) delta[3] / calls));
        return delta;
    }

    @Test
    void aRetransmissionIsAnsweredFromTheReplyCacheFramedForItsOwnChunks() throws Exception {
        ByteBuffer message = call(BulkProgram.COUNT, new byte[0]);
        RpcRdmaClient first = client();
        byte[] original = RpcWire.whole(first.call(CallRequest.builder(message.duplicate()).build(), TIMEOUT), false);
        first.close();
        // The client reconnects and sends the same call again, now offering a reply chunk.
        RpcRdmaClient second = client();
        RpcReply again = second.call(CallRequest.builder(message.duplicate()).replyChunk(4096).build(), TIMEOUT);
        assertArrayEquals(original, RpcWire.whole(again, false), "the same RPC reply");
        assertEquals(1, program.counted.get(), "the non-idempotent call ran once");
        assertEquals(1, rdma.retransmitsAnswered());
        // A big cached reply is re-framed too: first inline with a write chunk, then into a new, larger write chunk.
        ByteBuffer bulk = call(BulkProgram.BULK, RpcWire.intArgument(6000));
        RpcReply one = second.call(CallRequest.builder(bulk.duplicate()).writeChunk(8192).build(), TIMEOUT);
        RpcReply two = second.call(CallRequest.builder(bulk.duplicate()).writeChunk(16384).build(), TIMEOUT);
        assertArrayEquals(RpcWire.whole(one, true), RpcWire.whole(two, true));
        assertEquals(6000, two.writeChunk(0).remaining());
        assertEquals(2, rdma.retransmitsAnswered());
    }

    @Test
    void callsUpToTheCreditLimitRunConcurrently() throws Exception {
        RpcRdmaClient client = client(ClientConfig.builder().progressThread(true).maxCredits(CREDITS).build());
        List<CompletableFuture<RpcReply>> replies = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] data = new byte[i * 7];
            for (int j = 0; j < data.length; j++) {
                data[j] = (byte) (i + j);
            }
            sent.add(data);
            replies.add(client.call(CallRequest.builder(call(BulkProgram.ECHO, RpcWire.opaqueArgument(data))).build()));
        }
        for (int i = 0; i < replies.size(); i++) {
            byte[] reply = RpcWire.whole(replies.get(i).get(30, TimeUnit.SECONDS), false);
            assertEquals(0, RpcWire.acceptStatus(reply));
            byte[] echoed = java.util.Arrays.copyOfRange(reply, RpcWire.resultsOffset(reply) + 4,
                    RpcWire.resultsOffset(reply) + 4 + sent.get(i).length);
            assertArrayEquals(sent.get(i), echoed, "call " + i);
        }
        assertEquals(200, stats().get(Counter.REPLIES_INLINE));
    }

    /**
     * The bridge's per-call transports are reused once a call is done: a program that replies
     * twice must not have its second reply sent for a later call that took its transport up.
     */
    @Test
    void aSecondReplyOfAProgramReachesNoOtherCall() throws Exception {
        RpcRdmaClient client = client(ClientConfig.builder().progressThread(true).maxCredits(CREDITS).build());
        List<CompletableFuture<RpcReply>> replies = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ByteBuffer message = i % 2 == 0 ? call(BulkProgram.TWICE, RpcWire.intArgument(i + 1))
                    : call(BulkProgram.ECHO, RpcWire.opaqueArgument(new byte[] {(byte) i, 2, 3}));
            replies.add(client.call(CallRequest.builder(message).build()));
        }
        for (int i = 0; i < replies.size(); i++) {
            byte[] reply = RpcWire.whole(replies.get(i).get(30, TimeUnit.SECONDS), false);
            assertEquals(0, RpcWire.acceptStatus(reply), "call " + i);
            ByteBuffer results = ByteBuffer.wrap(reply, RpcWire.resultsOffset(reply), reply.length - RpcWire.resultsOffset(reply));
            if (i % 2 == 0) {
                assertEquals(i + 1, results.getInt(), "call " + i + ": the first reply of TWICE");
                assertEquals(0, results.remaining());
            } else {
                assertEquals(3, results.getInt(), "call " + i + ": an ECHO's opaque, not a stray TWICE reply");
                assertEquals((byte) i, results.get());
            }
        }
        assertEquals(200, stats().get(Counter.REPLIES_INLINE), "one reply per call, no more");
    }

    @Test
    void aClientOverrunningItsCreditsIsHeldBackByTheFabricAndLosesNothing() throws Exception {
        RpcRdmaClient greedy = client(ClientConfig.builder().progressThread(true).maxCredits(1024).enforceCredits(false).build());
        List<CompletableFuture<RpcReply>> flood = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            flood.add(greedy.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build()));
        }
        // SENDs beyond the posted receives meet RNR NAKs and are retried by the fabric (rnr_retry 7,
        // as Linux sets it): the server only ever sees what it has receives for, and answers all.
        int answered = 0;
        for (CompletableFuture<RpcReply> f : flood) {
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(f.get(30, TimeUnit.SECONDS), false)));
            answered++;
        }
        RpcRdmaClient polite = client();
        RpcReply ok = polite.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build(), TIMEOUT);
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(ok, false)), "the server still serves others");
        assertEquals(500, answered);
        assertEquals(0, stats().get(Counter.HANDLER_ERRORS), "no server-side failure");
    }

    @Test
    void whatAClientIgnoringItsCreditsGetsHeldIsBoundedByItsReceiveContexts() throws Exception {
        // issue #15 defect 1: a client granted CREDITS that sends 256 calls had all of them
        // accepted, copied to the heap and queued for the workers. Now a call keeps its receive
        // context until answered, so the server holds at most the connection's receive contexts
        // (2 x credits); the rest wait in the client's queue pair (RNR), and none is lost.
        program.gate = new java.util.concurrent.CountDownLatch(1);
        RpcRdmaClient greedy = client(ClientConfig.builder().progressThread(true).maxCredits(1024).enforceCredits(false).build());
        List<CompletableFuture<RpcReply>> flood = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            flood.add(greedy.call(CallRequest.builder(call(BulkProgram.GATED, new byte[0])).build()));
        }
        long held = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            long delivered = stats().get(Counter.CALLS_DELIVERED);
            if (delivered == held && delivered > 0) {
                break;
            }
            held = delivered;
            Thread.sleep(200);
        }
        int bound = TransportConfig.builder().credits(CREDITS).build().receiveContexts();
        assertTrue(held > 0 && held <= bound, "calls held while the program waits: " + held + ", bound " + bound);
        program.gate.countDown();
        for (CompletableFuture<RpcReply> f : flood) {
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(f.get(60, TimeUnit.SECONDS), false)));
        }
        assertEquals(256, stats().get(Counter.CALLS_DELIVERED), "every call served in the end");
    }

    @Test
    void programsComingAndGoingWhileCallsFlowGetSuccessOrProgUnavail() throws Exception {
        RpcRdmaClient client = client();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread flipper = new Thread(() -> {
            while (running.get()) {
                host.removeProgram(programKey, program);
                Thread.onSpinWait();
                host.addProgram(programKey, program);
            }
        });
        flipper.start();
        int success = 0;
        int unavailable = 0;
        try {
            for (int i = 0; i < 500; i++) {
                byte[] reply = RpcWire.whole(client.call(CallRequest.builder(call(BulkProgram.NULL, new byte[0])).build(), TIMEOUT), false);
                int status = RpcWire.acceptStatus(reply);
                if (status == 0) {
                    success++;
                } else if (status == 1) {
                    unavailable++;
                } else {
                    fail("unexpected accept status " + status);
                }
            }
        } finally {
            running.set(false);
            flipper.join();
        }
        assertEquals(500, success + unavailable, "every call answered");
    }

    @Test
    void stoppingLetsRunningCallsAnswerAndReleasesEverything() throws Exception {
        RpcRdmaClient client = client();
        CompletableFuture<RpcReply> slow = client.call(CallRequest.builder(call(BulkProgram.SLOW, RpcWire.intArgument(300))).build());
        // Running: handed to the bridge (counted in flight), not only delivered by the receive
        // path; a call the stop meets between the two is refused, as any call arriving during a
        // stop is (the client sends it again on its next connection). Waiting for delivery only
        // let the stop slip into that window now and then (CI, 2026-12-05: "connection lost").
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (rdma.callsInFlight() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(1, rdma.callsInFlight(), "the SLOW call runs");
        host.removeTransport(rdma);
        RpcReply reply = slow.get(30, TimeUnit.SECONDS);
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(reply, false)), "the running call answered before the close");
        assertTrue(rdma.isStopped());
        assertNotNull(tcp.localAddress(), "TCP goes on");
        assertEquals(0, RpcWire.acceptStatus(overTcp(call(BulkProgram.NULL, new byte[0]))));
        client.close();
        assertEquals(0, fabric.registrationCount(), "no registered memory left on either side");
        assertEquals(0, fabric.queuePairCount(), "no queue pair left");
    }
}
