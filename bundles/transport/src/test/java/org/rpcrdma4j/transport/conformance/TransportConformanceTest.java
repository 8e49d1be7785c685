package org.rpcrdma4j.transport.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * TransportConformanceTest - the receive path, run against one registration strategy on the
 * deterministic loopback fabric. Subclass once per strategy (and device flavour).
 *
 * <p>After every test: no call is left unreleased, every receive is reposted, no sink, READ or
 * send buffer is held, and the transport closes completely (its protection domain closes, which
 * the loopback refuses while any memory region, fast-registration region or queue pair of it is
 * left).
 */
public abstract class TransportConformanceTest {
    private final RecordingHandler handler = new RecordingHandler();
    private TransportHarness harness;
    private TransportConfig config;
    private RegistrationStrategy strategy;

    /** @return the strategy under test */
    protected abstract RegistrationStrategy strategy();

    /** @return the loopback device's capabilities for this flavour */
    protected DeviceCapabilities capabilities() {
        return LoopbackFabric.DEFAULT_CAPABILITIES;
    }

    /** @return the sink length the strategy chooses with this configuration and device */
    protected abstract int sinkLength(TransportConfig config, DeviceCapabilities caps);

    /**
     * @return the most registrations the sink pools may still hold when no READ runs: 0 where every
     *         key ends with its READ, a slab per loop, or every window of every loop's pool where
     *         windows keep a local-only registration between READs
     */
    protected abstract int idleRegistrationsAtMost(TransportConfig config, DeviceCapabilities caps);

    /**
     * Starts a harness with one completion loop unless the test asks for more (each loop has its
     * own pools: a test of pool sizes counts them for one loop).
     */
    private TransportHarness start(TransportConfig cfg, DeviceCapabilities caps) throws Exception {
        return startWithLoops(cfg.toBuilder().completionLoops(1).build(), caps);
    }

    private TransportHarness startWithLoops(TransportConfig cfg, DeviceCapabilities caps) throws Exception {
        return start(cfg, LoopbackFabric.builder().capabilities(caps).build());
    }

    private TransportHarness start(TransportConfig cfg, LoopbackFabric fabric) throws Exception {
        config = cfg;
        strategy = strategy();
        harness = new TransportHarness(fabric, cfg, handler, strategy);
        return harness;
    }

    private TransportHarness start() throws Exception {
        return start(TransportConfig.DEFAULTS, capabilities());
    }

    private TransportStatistics stats() {
        return harness.transport().statistics();
    }

    @AfterEach
    void noLeaks() throws Exception {
        if (harness == null) {
            return;
        }
        try {
            harness.settle();
            assertEquals(0, handler.size(), "calls left unreleased by the test");
            ResourceUsage u = harness.usage();
            assertEquals(0, u.heldReceiveContexts(), "receive contexts held: " + u);
            assertEquals(0, u.outstandingSinks(), "sinks outstanding: " + u);
            assertEquals(0, u.readsInFlight(), "READs in flight: " + u);
            assertEquals(0, u.sendBuffersInUse(), "send buffers in use: " + u);
            int live = 0;
            for (RdmaConnection c : harness.transport().connections()) {
                live += c.isOpen() ? 1 : 0;
            }
            int posted = config.credits() + config.backchannelCredits();
            int target = Math.min(config.receiveContexts(), posted + config.repostBatch());
            assertTrue(u.postedReceives() >= live * posted && u.postedReceives() <= live * target,
                    "at least credits (and backward replies') receives posted per connection, at most a batch more: " + u);
            int idleAtMost = idleRegistrationsAtMost(config, capabilities());
            if (idleAtMost == 0) {
                assertEquals(0, u.sinkRegistrations(), "registrations outlived their READ: " + u);
            } else {
                assertTrue(u.sinkRegistrations() <= idleAtMost, "at most " + idleAtMost + " registrations while idle: " + u);
            }
            assertTrue(harness.closeTransport(), "the transport did not release everything: " + harness.usage());
        } finally {
            harness.close();
        }
    }

    private ReceivedCall receiveOne() throws Exception {
        harness.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size(), () -> "calls delivered; " + stats() + " " + harness.usage());
        return calls.get(0);
    }

    /** Sends, receives, checks byte-exact, releases. */
    private ReceivedCall roundTrip(RawPeer client, CallBuilder call) throws Exception {
        call.send(client, 0);
        ReceivedCall received = receiveOne();
        assertEquals(call.xid(), received.xid());
        assertBody(call.expectedBody(), received);
        return received;
    }

    private static void assertBody(byte[] expected, ReceivedCall call) {
        assertEquals(expected.length, call.bodyLength(), "body length");
        assertArrayEquals(expected, array(call.copyBody()), "body bytes");
        ByteBuffer joined = ByteBuffer.allocate(expected.length);
        for (ByteBuffer view : call.body()) {
            assertTrue(view.isReadOnly(), "views are read-only");
            joined.put(view.duplicate());
        }
        assertArrayEquals(expected, joined.array(), "views in XDR order");
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    private static int word(byte[] m, int index) {
        return ByteBuffer.wrap(m).getInt(index * 4);
    }

    private void assertError(RawPeer client, int xid, int errorCode) throws Exception {
        harness.settle();
        List<byte[]> replies = client.takeReplies();
        assertEquals(1, replies.size(), "one RDMA_ERROR");
        byte[] r = replies.get(0);
        assertEquals(xid, word(r, 0), "xid");
        assertEquals(config.credits(), word(r, 2), "credits granted");
        assertEquals(RpcRdma.RDMA_ERROR, word(r, 3), "proc");
        assertEquals(errorCode, word(r, 4), "error code");
        if (errorCode == RpcRdma.ERR_VERS) {
            assertEquals(28, r.length);
            assertEquals(1, word(r, 5), "vers_low");
            assertEquals(1, word(r, 6), "vers_high");
        } else {
            assertEquals(20, r.length);
            assertEquals(RpcRdma.VERSION_1, word(r, 1));
        }
    }

    // ---- connection set-up ----

    @Test
    void acceptAdvertisesInlineSizesAndTakesTheClientsReceiveSize() throws Exception {
        start(TransportConfig.builder().inlineReceiveThreshold(8192).build(), capabilities());
        RawPeer withData = harness.connect(new ConnectionPrivateData(1024, 2048, true));
        RawPeer without = harness.connect(null);
        assertEquals(8192, withData.acceptedParameters().maxReceiveSize());
        assertEquals(2048, withData.acceptedParameters().maxSendSize());
        List<RdmaConnection> conns = harness.transport().connections();
        assertEquals(2, conns.size());
        RdmaConnection first = conns.get(0);
        RdmaConnection second = conns.get(1);
        assertEquals(2048, first.replySizeLimit());
        assertEquals(capabilities().remoteInvalidation(), first.remoteInvalidationAllowed(), "asked for; allowed where the device can post it");
        assertEquals(1024, second.replySizeLimit(), "RFC 8166 default without private data");
        assertFalse(second.remoteInvalidationAllowed());
        assertEquals(withData.localAddress(), first.remoteAddress(), "the real peer address");
        assertEquals(without.localAddress(), second.remoteAddress());
        assertEquals(2, stats().get(Counter.CONNECTIONS_ACCEPTED));
    }

    @Test
    void remoteInvalidationNeedsTheClientsConsentAndTheDevicesAbility() throws Exception {
        // The Linux client always offers remote invalidation; a device that cannot post
        // SEND_WITH_INV (DiSNI: user-space verbs without the opcode) must answer with plain SENDs.
        DeviceCapabilities b = capabilities();
        DeviceCapabilities noRemoteInvalidation = new DeviceCapabilities(b.transportType(), b.maxSendSge(), b.maxReceiveSge(),
                b.maxReadSge(), b.maxInlineData(), b.maxQueueDepth(), b.maxCompletionQueueEntries(), b.maxOutstandingReads(),
                b.maxIncomingReads(), b.fastRegistration(), false, b.maxFastRegistrationLength());
        start(TransportConfig.DEFAULTS, noRemoteInvalidation);
        harness.connect(new ConnectionPrivateData(1024, 2048, true));
        RdmaConnection conn = harness.transport().connections().get(0);
        assertFalse(conn.remoteInvalidationAllowed(), "the client asked, but the device cannot post SEND_WITH_INV");
        assertEquals(2048, conn.replySizeLimit(), "the rest of the client's private data still counts");
    }

    @Test
    void aConnectionThatCannotBeSetUpIsRejectedAndLeavesNothingBehind() throws Exception {
        DeviceCapabilities b = capabilities();
        DeviceCapabilities tinyCq = new DeviceCapabilities(b.transportType(), b.maxSendSge(), b.maxReceiveSge(), b.maxReadSge(),
                b.maxInlineData(), b.maxQueueDepth(), 32, b.maxOutstandingReads(), b.maxIncomingReads(),
                b.fastRegistration(), b.remoteInvalidation(), b.maxFastRegistrationLength());
        start(TransportConfig.DEFAULTS, tinyCq);
        assertThrows(IllegalStateException.class, () -> harness.connect(), "the client must not get connected");
        assertEquals(1, stats().get(Counter.ACCEPT_FAILURES));
        assertEquals(0, stats().get(Counter.CONNECTIONS_ACCEPTED));
        assertEquals(0, harness.transport().connections().size());
    }

    // ---- inline ----

    @Test
    void inlineCallIsHandedOnWithoutACopy() throws Exception {
        start();
        RawPeer client = harness.connect();
        CallBuilder call = CallBuilder.msg(0x1001).credits(17).inline(CallBuilder.bytes(400, 1));
        ReceivedCall received = roundTrip(client, call);
        assertEquals(17, received.creditsRequested());
        assertEquals(RpcRdma.RDMA_MSG, received.procedure());
        assertEquals(1, received.body().size(), "one view of the receive buffer");
        assertTrue(received.body().get(0).isDirect(), "a view of the registered receive buffer, not a copy");
        assertFalse(received.hasReadChunks());
        assertEquals(client.localAddress(), received.connection().remoteAddress());
        received.release();
        assertEquals(1, stats().get(Counter.CALLS_INLINE));
        assertEquals(0, stats().get(Counter.READS));
    }

    @Test
    void manyInlineCallsReuseTheReceivePool() throws Exception {
        start(TransportConfig.builder().credits(4).repostBatch(2).build(), capabilities());
        RawPeer client = harness.connect();
        for (int i = 0; i < 40; i++) {
            roundTrip(client, CallBuilder.msg(i).inline(CallBuilder.bytes(64 + 4 * i, i))).release();
        }
        assertEquals(40, stats().get(Counter.CALLS_DELIVERED));
        assertEquals(40, stats().get(Counter.RECEIVES));
    }

    @Test
    void heldCallsStarveTheReceiveQueueAndTheNextCallWaitsWithoutLoss() throws Exception {
        start(TransportConfig.builder().credits(2).backchannelCredits(0).receiveContexts(2).repostBatch(1).build(), capabilities());
        RawPeer client = harness.connect();
        CallBuilder.msg(1).inline(CallBuilder.bytes(8, 1)).send(client, 0);
        CallBuilder.msg(2).inline(CallBuilder.bytes(8, 2)).send(client, 0);
        harness.settle();
        List<ReceivedCall> held = handler.takeAll();
        assertEquals(2, held.size());
        assertEquals(1, stats().get(Counter.RECEIVE_STARVATION), "one episode: no free context to repost while calls are held");
        CallBuilder third = CallBuilder.msg(3).inline(CallBuilder.bytes(8, 3));
        third.send(client, 0);
        harness.settle();
        assertEquals(0, handler.size(), "no receive posted: the third call waits at the sender");
        held.forEach(ReceivedCall::release);
        ReceivedCall r = receiveOne();
        assertEquals(3, r.xid());
        assertBody(third.expectedBody(), r);
        r.release();
    }

    @Test
    void errorRepliesBeyondTheSendBuffersAreDroppedAndCounted() throws Exception {
        start(TransportConfig.builder().sendBuffers(1).build(), capabilities());
        RawPeer client = harness.connect();
        for (int xid = 0x701; xid <= 0x703; xid++) {
            client.send(header(xid, 1, RpcRdma.RDMA_MSGP, 0, 0, 0, 0, 0), new byte[0]);
        }
        harness.settle();
        List<byte[]> replies = client.takeReplies();
        assertEquals(1, replies.size(), "one send buffer: one answer per batch of completions");
        assertEquals(2, stats().get(Counter.SEND_BUFFER_STARVATION));
        client.send(header(0x704, 2, RpcRdma.RDMA_MSG, 0, 0, 0), new byte[0]);
        assertError(client, 0x704, RpcRdma.ERR_VERS);
        assertStillServing(client, 0x705);
    }

    @Test
    void callWithWriteListAndReplyChunkExposesThem() throws Exception {
        start();
        RawPeer client = harness.connect();
        ReceivedCall r = roundTrip(client, CallBuilder.msg(77).inline(CallBuilder.bytes(40, 3)).replyChunk(0x1234, 8192));
        assertTrue(r.hasReplyChunk());
        assertEquals(0x1234, r.replyChunk().handle(0));
        assertEquals(8192, r.replyChunk().length(0));
        assertTrue(r.writeList().isEmpty());
        r.release();
    }

    /**
     * A pending reply is a pooled per-call context: it keeps its call's chunk lists (as parsed at
     * receive time) after the call's receive buffer has carried other calls, and goes back to the
     * pool once its reply is posted; abandoned replies go back at once.
     */
    @Test
    void aPendingReplyKeepsItsCallsChunkListsAndIsReusedOnceItsReplyIsPosted() throws Exception {
        start(TransportConfig.builder().credits(2).backchannelCredits(0).receiveContexts(2).repostBatch(1).build(),
                capabilities());
        RawPeer client = harness.connect();
        ReceivedCall first = roundTrip(client, CallBuilder.msg(0x601).inline(CallBuilder.bytes(40, 3))
                .writeChunk(0x4321, 8192).replyChunk(0x1234, 8192));
        PendingReply reply = first.detachReply();
        first.release();
        assertEquals(8192, reply.writeChunkCapacity());
        assertEquals(8192, reply.replyChunkCapacity());
        // More calls than receive contexts: the first call's receive buffer is written over.
        for (int i = 0; i < 4; i++) {
            ReceivedCall other = roundTrip(client, CallBuilder.msg(0x610 + i).inline(CallBuilder.bytes(100, i)));
            PendingReply otherReply = other.detachReply();
            assertNotSame(reply, otherReply, "a context in use is never handed to another call");
            assertEquals(0, otherReply.writeChunkCapacity());
            otherReply.abandon();
            other.release();
        }
        ByteBuffer message = reply.replyBuffer();
        assertTrue(message.capacity() >= 1024, "at least the inline send size: " + message);
        RpcMessage.putAcceptedReplyHeader(message, 0x601, RpcMessage.SUCCESS).flip();
        reply.send(message, -1);
        harness.settle();
        List<byte[]> replies = client.takeReplies();
        assertEquals(1, replies.size());
        byte[] r = replies.get(0);
        assertEquals(0x601, word(r, 0), "xid");
        assertEquals(RpcRdma.RDMA_MSG, word(r, 3));
        assertEquals(0, word(r, 4), "no read list");
        assertEquals(1, word(r, 5), "the call's write chunk is echoed");
        assertEquals(1, word(r, 6), "one segment");
        assertEquals(0x4321, word(r, 7), "the first call's handle, not a later call's");
        assertEquals(0, word(r, 8), "nothing written into it");
        assertEquals(0x2000, word(r, 10), "offset");
        assertEquals(0, word(r, 11), "end of the write list");
        assertEquals(0, word(r, 12), "no reply chunk used");
        assertEquals(0x601, word(r, 13), "the RPC reply follows");
        assertEquals(13 * 4 + 24, r.length);

        ReceivedCall next = roundTrip(client, CallBuilder.msg(0x620).inline(CallBuilder.bytes(8, 1)));
        PendingReply again = next.detachReply();
        assertSame(reply, again, "the posted reply's context is taken up by the next call");
        assertEquals(0x620, again.xid());
        assertEquals(0, again.writeChunkCapacity(), "the new call's chunks, none");
        assertEquals(0, again.replyChunkCapacity());
        again.abandon();
        next.release();
        assertEquals(5, stats().get(Counter.REPLIES_ABANDONED));
    }

    @Test
    void secondReleaseIsDetected() throws Exception {
        start();
        RawPeer client = harness.connect();
        ReceivedCall r = roundTrip(client, CallBuilder.msg(5).inline(CallBuilder.bytes(8, 5)));
        r.release();
        assertThrows(IllegalStateException.class, r::release);
        assertEquals(1, stats().get(Counter.DOUBLE_RELEASES));
    }

    // ---- read chunks ----

    private void readChunkCall(CallBuilder call) throws Exception {
        RawPeer client = harness.connect();
        ReceivedCall r = roundTrip(client, call);
        assertTrue(r.hasReadChunks());
        r.release();
        assertEquals(1, stats().get(Counter.CALLS_DEFERRED));
        assertTrue(stats().get(Counter.READS) > 0);
        assertEquals(stats().get(Counter.READS), stats().readsByStrategy().get(strategy.name()));
    }

    /** The head: the first position a read chunk may take in RDMA_MSG (position 0 is RDMA_NOMSG's). */
    @Test
    void readChunkAtTheHead() throws Exception {
        start();
        readChunkCall(CallBuilder.msg(1).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(3000, 1))
                .inline(CallBuilder.bytes(200, 2)));
        assertEquals(3000, stats().get(Counter.READ_BYTES));
    }

    @Test
    void readChunkInTheMiddle() throws Exception {
        start();
        readChunkCall(CallBuilder.msg(2).inline(CallBuilder.bytes(120, 1)).chunk(CallBuilder.bytes(8192, 2), 4096, 4096)
                .inline(CallBuilder.bytes(60, 3)));
    }

    @Test
    void readChunkAtTheEnd() throws Exception {
        start();
        readChunkCall(CallBuilder.msg(3).inline(CallBuilder.bytes(256, 1)).chunk(CallBuilder.bytes(10_000, 2)));
    }

    @Test
    void severalReadChunksInPositionOrder() throws Exception {
        start();
        readChunkCall(CallBuilder.msg(4).inline(CallBuilder.bytes(32, 1)).chunk(CallBuilder.bytes(1001, 2), 500, 501)
                .inline(CallBuilder.bytes(16, 3)).chunk(CallBuilder.bytes(6, 4)).chunk(CallBuilder.bytes(70_000, 5), 30_000, 40_000)
                .inline(CallBuilder.bytes(8, 6)));
        assertEquals(1001 + 6 + 70_000, stats().get(Counter.READ_BYTES));
    }

    @Test
    void positionZeroChunkCarriesTheWholeCall() throws Exception {
        start();
        readChunkCall(CallBuilder.nomsg(5).inline(CallBuilder.bytes(20_000, 1)).positionZeroSegments(12_000, 8_000));
    }

    @Test
    void positionZeroChunkWithInterleavedDataChunks() throws Exception {
        start();
        ReceivedCall r;
        RawPeer client = harness.connect();
        r = roundTrip(client, CallBuilder.nomsg(6).inline(CallBuilder.bytes(5000, 1)).chunk(CallBuilder.bytes(3333, 2))
                .inline(CallBuilder.bytes(9000, 3)).chunk(CallBuilder.bytes(10, 4)).inline(CallBuilder.bytes(400, 5))
                .chunk(CallBuilder.bytes(7, 6)));
        assertEquals(RpcRdma.RDMA_NOMSG, r.procedure());
        r.release();
    }

    @Test
    void inlineTailLargerThanAPage() throws Exception {
        start(TransportConfig.builder().inlineReceiveThreshold(16 * 1024).build(), capabilities());
        RawPeer client = harness.connect();
        roundTrip(client, CallBuilder.msg(7).inline(CallBuilder.bytes(100, 1)).chunk(CallBuilder.bytes(5000, 2))
                .inline(CallBuilder.bytes(9000, 3))).release();
        roundTrip(client, CallBuilder.nomsg(8).inline(CallBuilder.bytes(4000, 4)).chunk(CallBuilder.bytes(4096, 5))
                .inline(CallBuilder.bytes(30_000, 6))).release();
    }

    @Test
    void payloadsNotAMultipleOfFourArePaddedWithZeros() throws Exception {
        start();
        RawPeer client = harness.connect();
        for (int length = 1; length <= 9; length++) {
            ReceivedCall r = roundTrip(client, CallBuilder.msg(100 + length).inline(CallBuilder.bytes(12, length))
                    .chunk(CallBuilder.bytes(length, 50 + length)).inline(CallBuilder.bytes(4, 9)));
            r.release();
        }
        roundTrip(client, CallBuilder.nomsg(200).inline(CallBuilder.bytes(64, 1)).chunk(CallBuilder.bytes(13, 2))).release();
    }

    @Test
    void chunksLargerThanOneReadAreSplitBySgeLimit() throws Exception {
        DeviceCapabilities base = capabilities();
        DeviceCapabilities twoSges = new DeviceCapabilities(base.transportType(), base.maxSendSge(), base.maxReceiveSge(), 2,
                base.maxInlineData(), base.maxQueueDepth(), base.maxCompletionQueueEntries(), base.maxOutstandingReads(),
                base.maxIncomingReads(), base.fastRegistration(), base.remoteInvalidation(), base.maxFastRegistrationLength());
        TransportConfig cfg = TransportConfig.builder().readSinkLength(64 * 1024).build();
        start(cfg, twoSges);
        int sink = sinkLength(cfg, twoSges);
        int length = 3 * sink + 5;
        RawPeer client = harness.connect();
        roundTrip(client, CallBuilder.msg(9).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(length, 2))).release();
        assertEquals(4, stats().get(Counter.READS), "one READ per sink of " + sink + " bytes");
        assertEquals(length, stats().get(Counter.READ_BYTES));
        long readPosts = stats().get(Counter.READ_POSTS);
        assertTrue(readPosts >= 1 && readPosts <= 4, "READs go in chains, a chain one post: " + readPosts);
    }

    @Test
    void ordLimitIsHonoured() throws Exception {
        TransportConfig cfg = TransportConfig.builder().maxOutstandingReads(2).readSinkLength(4096).build();
        start(cfg, capabilities());
        RawPeer client = harness.connect();
        CallBuilder call = CallBuilder.msg(10).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(40_000, 1));
        call.send(client, 0);
        int most = 0;
        for (int i = 0; i < 10_000 && handler.size() == 0; i++) {
            harness.step();
            int inFlight = harness.usage().readsInFlight();
            assertTrue(inFlight <= 2, "ORD exceeded: " + inFlight);
            most = Math.max(most, inFlight);
        }
        assertEquals(2, most, "the pipeline fills up to ORD");
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size());
        assertBody(call.expectedBody(), calls.get(0));
        calls.get(0).release();
        assertEquals(10, stats().get(Counter.READS));
        assertTrue(stats().get(Counter.READ_ORD_STALLS) > 0);
        assertTrue(stats().get(Counter.READ_POSTS) >= 5, "at most ORD (2) READs in flight, so in one post: "
                + stats().get(Counter.READ_POSTS));
    }

    @Test
    void sinkStarvationDefersCallsUntilSinksAreReleased() throws Exception {
        TransportConfig cfg = TransportConfig.builder().readSinkCount(2).readSinkLength(4096).build();
        start(cfg, capabilities());
        RawPeer client = harness.connect();
        CallBuilder a = CallBuilder.msg(11).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(8000, 1));
        CallBuilder b = CallBuilder.msg(12).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(100, 2));
        a.send(client, 0);
        b.send(client, 0);
        ReceivedCall first = receiveOne();
        assertEquals(11, first.xid());
        assertTrue(stats().get(Counter.READ_SINK_STARVATION) > 0, "the second call waits for a sink");
        first.release();
        ReceivedCall second = receiveOne();
        assertBody(b.expectedBody(), second);
        second.release();
    }

    @Test
    void callNeedingMoreSinksThanThePoolHoldsGetsErrChunk() throws Exception {
        start(TransportConfig.builder().readSinkCount(2).readSinkLength(4096).build(), capabilities());
        RawPeer client = harness.connect();
        CallBuilder.msg(13).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(3 * 4096, 1)).send(client, 0);
        assertError(client, 13, RpcRdma.ERR_CHUNK);
        assertEquals(1, stats().get(Counter.READ_PLAN_REFUSED));
        roundTrip(client, CallBuilder.msg(14).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(4096, 1))).release();
    }

    @Test
    void readChunksWithoutAnActiveStrategyGetErrChunk() throws Exception {
        start();
        harness.transport().removeStrategy(strategy);
        RawPeer client = harness.connect();
        CallBuilder.msg(15).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(100, 1)).send(client, 0);
        assertError(client, 15, RpcRdma.ERR_CHUNK);
        assertEquals(1, stats().get(Counter.NO_STRATEGY));
        roundTrip(client, CallBuilder.msg(16).inline(CallBuilder.bytes(4, 1))).release();
    }

    // ---- malformed headers: each answered, the connection goes on serving ----

    private byte[] header(int xid, int vers, int proc, int... rest) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 * rest.length);
        b.putInt(xid).putInt(vers).putInt(32).putInt(proc);
        for (int w : rest) {
            b.putInt(w);
        }
        return b.array();
    }

    private void assertStillServing(RawPeer client, int xid) throws Exception {
        roundTrip(client, CallBuilder.msg(xid).inline(CallBuilder.bytes(24, xid))).release();
    }

    @Test
    void eachMalformedHeaderIsAnsweredAndTheConnectionGoesOn() throws Exception {
        start();
        RawPeer client = harness.connect();
        byte[] body = CallBuilder.bytes(16, 1);
        record Case(String name, byte[] header, byte[] body, int error) {
        }
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("version 2", header(0x101, 2, RpcRdma.RDMA_MSG, 0, 0, 0), body, RpcRdma.ERR_VERS));
        cases.add(new Case("RDMA_MSGP", header(0x102, 1, RpcRdma.RDMA_MSGP, 0, 0, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("unknown proc", header(0x103, 1, 9, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("bad discriminator", header(0x104, 1, RpcRdma.RDMA_MSG, 7, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("truncated read list", header(0x105, 1, RpcRdma.RDMA_MSG, 1, 0, 5), new byte[0], RpcRdma.ERR_CHUNK));
        cases.add(new Case("zero-segment write chunk", header(0x106, 1, RpcRdma.RDMA_MSG, 0, 1, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("zero-segment reply chunk", header(0x107, 1, RpcRdma.RDMA_MSG, 0, 0, 1, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("huge segment count", header(0x108, 1, RpcRdma.RDMA_MSG, 0, 1, 0x40000001, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("misaligned position", header(0x109, 1, RpcRdma.RDMA_MSG, 1, 6, 1, 4, 0, 0, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("position beyond inline", header(0x10a, 1, RpcRdma.RDMA_MSG, 1, 64, 1, 4, 0, 0, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("NOMSG without position zero", header(0x10b, 1, RpcRdma.RDMA_NOMSG, 0, 0, 0), new byte[0], RpcRdma.ERR_CHUNK));
        cases.add(new Case("position zero in MSG", header(0x10c, 1, RpcRdma.RDMA_MSG, 1, 0, 1, 4, 0, 0, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        cases.add(new Case("overlapping chunks", header(0x10d, 1, RpcRdma.RDMA_MSG, 1, 4, 1, 8, 0, 0, 1, 8, 1, 8, 0, 0, 0, 0, 0), body, RpcRdma.ERR_CHUNK));
        int n = 0;
        for (Case c : cases) {
            client.send(c.header, c.body);
            assertError(client, word(c.header, 0), c.error);
            assertStillServing(client, 0x200 + n++);
        }
        assertEquals(1, stats().get(Counter.ERR_VERS_SENT));
        assertEquals(cases.size() - 1, stats().get(Counter.ERR_CHUNK_SENT));
        assertEquals(1, stats().get(Counter.MSGP_RECEIVED));
        assertEquals(0, stats().get(Counter.CONNECTIONS_FAILED));
    }

    @Test
    void doneErrorAndRuntMessagesAreCountedAndDropped() throws Exception {
        start();
        RawPeer client = harness.connect();
        client.send(header(0x301, 1, RpcRdma.RDMA_DONE), new byte[0]);
        client.send(header(0x302, 1, RpcRdma.RDMA_ERROR, RpcRdma.ERR_CHUNK), new byte[0]);
        client.send(header(0x303, 1, RpcRdma.RDMA_ERROR, 99), new byte[0]);
        client.send(new byte[] {1, 2}, new byte[0]);
        harness.settle();
        assertEquals(0, client.takeReplies().size(), "never answer an error with an error");
        assertEquals(1, stats().get(Counter.DONE_DROPPED));
        assertEquals(2, stats().get(Counter.CLIENT_ERRORS_DROPPED));
        assertEquals(1, stats().get(Counter.TRUNCATED_DROPPED));
        assertStillServing(client, 0x304);
    }

    @Test
    void truncatedFixedHeaderWithAnXidGetsErrChunk() throws Exception {
        start();
        RawPeer client = harness.connect();
        client.send(new byte[] {0, 0, 0x4, 0x1, 0, 0, 0, 1}, new byte[0]);
        assertError(client, 0x401, RpcRdma.ERR_CHUNK);
        assertStillServing(client, 0x402);
    }

    // ---- READ failure ----

    @Test
    void readFailureClosesOnlyItsOwnConnection() throws Exception {
        start();
        RawPeer bad = harness.connect();
        RawPeer good = harness.connect();
        CallBuilder.msg(0x501).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(9000, 2)).send(bad, 1);
        harness.settle();
        assertEquals(0, handler.size(), "the failed call is dropped");
        assertTrue(bad.isDisconnected(), "its connection is closed");
        assertFalse(good.isDisconnected());
        assertEquals(1, stats().get(Counter.READ_ERRORS));
        assertEquals(1, stats().get(Counter.CALLS_DROPPED));
        assertEquals(1, stats().get(Counter.CONNECTIONS_FAILED));
        assertEquals(1, stats().get(Counter.CONNECTIONS_CLOSED));
        assertEquals(1, harness.transport().connections().size());
        roundTrip(good, CallBuilder.msg(0x502).inline(CallBuilder.bytes(8, 3)).chunk(CallBuilder.bytes(9000, 4))).release();
        roundTrip(good, CallBuilder.msg(0x503).inline(CallBuilder.bytes(8, 5))).release();
    }

    @Test
    void clientDisconnectWhileCallIsHeldReturnsEverythingOnRelease() throws Exception {
        start();
        RawPeer client = harness.connect();
        ReceivedCall held = roundTrip(client, CallBuilder.msg(0x601).inline(CallBuilder.bytes(4, 0)).chunk(CallBuilder.bytes(5000, 1)));
        client.disconnect();
        harness.settle();
        assertEquals(1, harness.transport().connections().size(), "kept until the call is released");
        assertTrue(harness.usage().outstandingSinks() > 0);
        assertFalse(held.connection().isOpen());
        held.release();
        harness.settle();
        assertEquals(0, harness.transport().connections().size());
        assertEquals(1, stats().get(Counter.CONNECTIONS_CLOSED));
    }

    @Test
    void aMessageThatArrivedButWasPolledOnlyAfterTheClientLeftIsCounted() throws Exception {
        // issue #15: a message whose SEND completed at the client, but that the server had not
        // polled before the client disconnected, vanished without a counter.
        start();
        RawPeer leaving = harness.connect();
        RawPeer other = harness.connect();
        CallBuilder.msg(0xc01).inline(CallBuilder.bytes(8, 1)).send(leaving, 0);
        harness.fabric().runUntilIdle();
        leaving.poll();
        assertEquals(0, leaving.sendsFailed(), "the client's SEND completed: the message is in a server receive");
        leaving.disconnect();
        harness.settle();
        assertEquals(0, handler.size(), "not delivered: its connection was closing when it was polled");
        assertEquals(0, stats().get(Counter.CALLS_DELIVERED));
        assertEquals(1, stats().get(Counter.RECEIVES_DISCARDED_AT_CLOSE), () -> "counted: " + stats());
        assertEquals(1, harness.transport().connections().size());
        roundTrip(other, CallBuilder.msg(0xc02).inline(CallBuilder.bytes(8, 2))).release();
        assertEquals(1, stats().get(Counter.RECEIVES_DISCARDED_AT_CLOSE), "a served message is not counted");
    }

    @Test
    void connectionsAreSpreadOverTheLoopsAndEachLoopServesItsOwn() throws Exception {
        startWithLoops(TransportConfig.builder().completionLoops(3).build(), capabilities());
        List<RawPeer> clients = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            clients.add(harness.connect());
        }
        for (int i = 0; i < clients.size(); i++) {
            roundTrip(clients.get(i), CallBuilder.msg(0x700 + i).inline(CallBuilder.bytes(8, i)).chunk(CallBuilder.bytes(5000, i)))
                    .release();
        }
        assertEquals(6, stats().get(Counter.CALLS_DELIVERED));
        assertEquals(6, harness.transport().connections().size());
        clients.get(0).disconnect();
        harness.settle();
        assertEquals(5, harness.transport().connections().size(), "a disconnect closes only its own connection");
        roundTrip(clients.get(5), CallBuilder.msg(0x7ff).inline(CallBuilder.bytes(8, 9))).release();
    }

    @Test
    void aQueuePairThatGoesToErrorUnderTheServerClosesItsConnectionAndNothingIsReposted() throws Exception {
        start();
        RawPeer victim = harness.connect();
        RawPeer other = harness.connect();
        roundTrip(victim, CallBuilder.msg(0x801).inline(CallBuilder.bytes(8, 1))).release();
        RdmaConnection served = harness.transport().connections().get(0);
        long receivesBefore = stats().get(Counter.RECEIVES);
        // The peer's RDMA WRITE with a key the server never gave: the server's queue pair (the
        // responder) goes to error and flushes every posted receive. Before the fix the flushed
        // receives were reposted into the errored queue pair, flushed again, forever: the
        // harness never settled and the connection was never closed.
        victim.writeRemote(new byte[64], 0x10000L, 0x5eed0bad);
        harness.settle();
        assertFalse(served.isOpen(), "the connection whose queue pair failed is closed");
        assertEquals(1, stats().get(Counter.QUEUE_PAIR_FLUSHES));
        assertEquals(1, harness.transport().connections().size(), "only that one");
        assertEquals(receivesBefore, stats().get(Counter.RECEIVES), "no flushed receive was taken for a message");
        int settledWork = harness.settle();
        assertEquals(0, settledWork, "the loop is idle: nothing reposted into the errored queue pair");
        roundTrip(other, CallBuilder.msg(0x802).inline(CallBuilder.bytes(8, 2))).release();
    }

    @Test
    void aPeerThatStopsPostingReceivesFailsTheServersFiniteRnrRetryAndOnlyItsConnectionCloses() throws Exception {
        // issue #15 defect 2: the server's queue pair kept the infinite RNR retry, so a reply SEND
        // to a peer that stopped posting receives waited for ever, holding what it held.
        start();
        RawPeer stalled = harness.connect();
        RawPeer other = harness.connect();
        stalled.stopReposting();
        for (int i = 0; i < 40 && !stalled.isDisconnected(); i++) {
            // Each is answered with RDMA_ERROR/ERR_VERS: a SEND into one of the peer's receives.
            stalled.send(header(0x900 + i, 2, RpcRdma.RDMA_MSG, 0, 0, 0), new byte[0]);
            harness.settle();
        }
        assertTrue(stalled.isDisconnected(), () -> "the peer's connection is closed once the RNR retries are used up: " + stats() + " " + harness.usage());
        assertEquals(1, stats().get(Counter.SEND_ERRORS));
        assertEquals(1, harness.transport().connections().size());
        roundTrip(other, CallBuilder.msg(0x9fe).inline(CallBuilder.bytes(8, 1))).release();
    }

    @Test
    void aPeerThatMakesTheServerRetryRnrForEverIsClosedAtTheStallDeadlineAndOthersGoOn() throws Exception {
        // On InfiniBand the IB CM takes the server's RNR retry count from the client's connect
        // request: a hostile client asks for 7 (for ever). The stall deadline closes it anyway:
        // work outstanding without any completion for stallTimeoutSeconds.
        start(TransportConfig.builder().stallTimeoutSeconds(1).completionLoops(1).build(),
                LoopbackFabric.builder().capabilities(capabilities()).rnrRetryFromConnectRequest(true).build());
        RawPeer stalled = harness.connect();
        RawPeer other = harness.connect();
        stalled.stopReposting();
        for (int i = 0; i < 40; i++) {
            // Each is answered with RDMA_ERROR/ERR_VERS: a SEND into one of the peer's receives.
            stalled.send(header(0x900 + i, 2, RpcRdma.RDMA_MSG, 0, 0, 0), new byte[0]);
            harness.settle();
        }
        assertFalse(stalled.isDisconnected(), "not before the deadline");
        Thread.sleep(1200);
        harness.settle();
        assertEquals(1, stats().get(Counter.CONNECTIONS_STALLED));
        assertTrue(stalled.isDisconnected(), "the stalled peer's connection is closed");
        assertEquals(1, harness.transport().connections().size());
        roundTrip(other, CallBuilder.msg(0x9ff).inline(CallBuilder.bytes(8, 1))).release();
    }

    @Test
    void connectRequestsBeyondMaxConnectionsAreRejected() throws Exception {
        start(TransportConfig.builder().maxConnections(2).build(), capabilities());
        RawPeer first = harness.connect();
        RawPeer second = harness.connect();
        assertThrows(IllegalStateException.class, harness::connect, "the third is rejected");
        assertEquals(1, stats().get(Counter.CONNECTIONS_REFUSED_LIMIT));
        roundTrip(first, CallBuilder.msg(0xa01).inline(CallBuilder.bytes(8, 1))).release();
        second.disconnect();
        harness.settle();
        RawPeer fourth = harness.connect();
        roundTrip(fourth, CallBuilder.msg(0xa02).inline(CallBuilder.bytes(8, 2))).release();
    }

    @Test
    void aCallWhoseReadSinkCannotBePreparedIsAnsweredNotDropped() throws Exception {
        // issue #15, suspected: a call whose READ sink the strategy could not prepare (a failed
        // registration) was dropped in silence (only CALLS_DROPPED moved); the client waited for
        // its timeout. Now it is answered with RDMA_ERROR/ERR_CHUNK and the connection goes on.
        config = TransportConfig.builder().completionLoops(1).build();
        strategy = new PrepareRefusingStrategy(strategy());
        harness = new TransportHarness(LoopbackFabric.builder().capabilities(capabilities()).build(), config, handler,
                strategy);
        RawPeer client = harness.connect();
        CallBuilder.msg(0xb01).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(9000, 2)).send(client, 0);
        assertError(client, 0xb01, RpcRdma.ERR_CHUNK);
        assertEquals(0, handler.size(), "the call is not delivered");
        assertEquals(1, stats().get(Counter.CALLS_DROPPED));
        assertFalse(client.isDisconnected(), "a local failure does not close the connection");
        roundTrip(client, CallBuilder.msg(0xb02).inline(CallBuilder.bytes(8, 3))).release();
    }

    /** An RPC call message of the back channel (AUTH_NONE, one argument word). */
    private static ByteBuffer backwardCall(int xid) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Xdr.UNIT_BYTES);
        return RpcMessage.putCallHeader(b, xid, 0x4000_0000, 1, 1).putInt(7).flip();
    }

    /** An accepted, successful RPC reply message (AUTH_NONE verifier) carrying one word. */
    private static byte[] backwardReply(int xid) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Xdr.UNIT_BYTES);
        return RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(14).array();
    }

    @Test
    void backwardRepliesThroughReadChunksAreRefusedAndGiveTheirCreditBack() throws Exception {
        // issue #31, D2: a backward reply that came as RDMA_NOMSG (or with a read list) was not
        // taken as a reply: it went the way of calls (here: delivered to the handler as a call)
        // and its backward call stayed outstanding, its credit gone for good.
        start();
        RawPeer client = harness.connect();
        RdmaConnection connection = harness.transport().connections().get(0);
        for (int i = 0; i < 2; i++) {
            int xid = 0xc01 + i;
            assertEquals(Backchannel.SendOutcome.QUEUED, connection.backchannel().send(backwardCall(xid)));
            harness.settle();
            assertEquals(1, connection.backchannel().outstanding(), "backward call " + i + " is out");
            CallBuilder reply = i == 0
                    ? CallBuilder.nomsg(xid).inline(backwardReply(xid)) // the whole reply in a position-zero chunk
                    : CallBuilder.msg(xid).inline(Arrays.copyOf(backwardReply(xid), 24)).chunk(new byte[] {0, 0, 0, 14});
            reply.send(client, 0);
            harness.settle();
            assertEquals(0, handler.size(), "reply " + i + " is never taken for a call");
            assertEquals(0, connection.backchannel().outstanding(), "reply " + i + " gave its credit back");
            assertEquals(List.of(xid), handler.takeRefusedReplies(), "the handler is told, to fail the caller at once");
        }
        assertEquals(2, stats().get(Counter.BACKWARD_REPLIES_REFUSED));
        assertEquals(0, stats().get(Counter.BACKWARD_REPLIES_UNMATCHED));
        // The back channel serves on: a third call, answered inline, is matched.
        assertEquals(Backchannel.SendOutcome.QUEUED, connection.backchannel().send(backwardCall(0xc03)));
        harness.settle();
        CallBuilder.msg(0xc03).inline(backwardReply(0xc03)).send(client, 0);
        harness.settle();
        assertEquals(List.of(0xc03), handler.takeBackwardReplies());
        assertEquals(0, connection.backchannel().outstanding());
        assertEquals(3, stats().get(Counter.BACKWARD_CALLS));
        assertEquals(1, stats().get(Counter.BACKWARD_REPLIES));
    }
}
