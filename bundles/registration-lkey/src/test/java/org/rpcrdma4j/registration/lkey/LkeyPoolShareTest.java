package org.rpcrdma4j.registration.lkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * LkeyPoolShareTest - the loop's READ sinks and reply staging are shared by its connections in
 * bounded shares (issue #15 defect 2, issue #13 item 5): a greedy or stalled connection no longer
 * holds a whole pool while another connection's READs or large replies wait, and one client
 * keeping 16 x 1 MiB in flight fits the default pools. Deterministic fabric, driven by
 * {@code doWork()} passes; nothing measures time.
 */
class LkeyPoolShareTest {
    private final RecordingHandler handler = new RecordingHandler();
    private TransportHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            try {
                assertTrue(harness.closeTransport(), () -> "the transport did not release everything: " + harness.usage());
            } finally {
                harness.close();
            }
        }
    }

    private TransportHarness start(TransportConfig config, LoopbackFabric fabric) throws Exception {
        harness = new TransportHarness(fabric, config, handler, new LkeyRegistrationStrategy());
        return harness;
    }

    private TransportStatistics statsOf(RawPeer client) {
        for (RdmaConnection c : harness.transport().connections()) {
            if (c.remoteAddress().equals(client.localAddress())) {
                return c.statistics();
            }
        }
        throw new AssertionError("no connection for " + client.localAddress());
    }

    private static List<Integer> xids(List<ReceivedCall> calls) {
        List<Integer> xids = new ArrayList<>();
        for (ReceivedCall c : calls) {
            xids.add(c.xid());
        }
        return xids;
    }

    @Test
    void aGreedyConnectionHoldingItsShareOfSinksDoesNotDelayAnotherConnectionsRead() throws Exception {
        // 8 sinks of 4 KiB on one loop. Before: the greedy client's 8 held calls took all 8 sinks
        // and the other client's call waited (READ_SINK_STARVATION) until the greedy released.
        start(TransportConfig.builder().completionLoops(1).readSinkCount(8).readSinkLength(4096).build(),
                LoopbackFabric.builder().build());
        RawPeer greedy = harness.connect();
        RawPeer other = harness.connect();
        for (int i = 0; i < 8; i++) {
            CallBuilder.msg(0x100 + i).inline(CallBuilder.bytes(4, i)).chunk(CallBuilder.bytes(4000, i)).send(greedy, 0);
        }
        harness.settle();
        List<ReceivedCall> held = handler.takeAll();
        assertEquals(6, held.size(), "the greedy connection holds at most three quarters of the pool: " + xids(held));
        assertEquals(1, statsOf(greedy).get(Counter.READ_SINK_SHARE_WAITS), "its next call waits for its own releases");
        assertEquals(0, statsOf(greedy).get(Counter.READ_SINK_STARVATION));

        CallBuilder call = CallBuilder.msg(0x200).inline(CallBuilder.bytes(4, 9)).chunk(CallBuilder.bytes(4000, 9));
        call.send(other, 0);
        harness.settle();
        List<ReceivedCall> served = handler.takeAll();
        assertEquals(List.of(0x200), xids(served), "the other connection's call is pulled while the greedy holds its share");
        assertEquals(0, statsOf(other).get(Counter.READ_SINK_STARVATION));
        assertEquals(0, statsOf(other).get(Counter.READ_SINK_SHARE_WAITS));
        ByteBuffer body = served.get(0).copyBody();
        byte[] bytes = new byte[body.remaining()];
        body.get(bytes);
        byte[] expected = call.expectedBody();
        assertEquals(expected.length, bytes.length);
        assertTrue(java.util.Arrays.equals(expected, bytes), "byte-exact body");
        served.get(0).release();

        // The greedy connection's own releases let its waiting calls go.
        for (ReceivedCall c : held) {
            c.release();
        }
        harness.settle();
        List<ReceivedCall> rest = handler.takeAll();
        assertEquals(List.of(0x106, 0x107), xids(rest));
        for (ReceivedCall c : rest) {
            c.release();
        }
        harness.settle();
        ResourceUsage u = harness.usage();
        assertEquals(0, u.outstandingSinks(), "every sink is back: " + u);
        assertEquals(0, u.heldReceiveContexts(), "every context is back: " + u);
    }

    @Test
    void aStalledConnectionHoldingItsShareOfStagingDoesNotDelayAnotherConnectionsLargeReply() throws Exception {
        // A peer that stops posting receives and asks for the infinite RNR retry (IB CM): its
        // reply SENDs never complete, so the staging extents of its reply-chunk replies stay held
        // (until the stall deadline, set far away here). 64 KiB of staging on one loop; each reply
        // stages 8000 bytes. Before: the stalled peer's 8 replies took the whole slab and the
        // other client's large reply waited (REPLY_STAGING_STARVATION).
        start(TransportConfig.builder().completionLoops(1).replyStagingBytes(64 << 10).stallTimeoutSeconds(3600).build(),
                LoopbackFabric.builder().rnrRetryFromConnectRequest(true).build());
        RawPeer stalled = harness.connect();
        RawPeer other = harness.connect();
        stalled.stopReposting();
        // Use up the stalled peer's posted receives with small inline round trips.
        for (int i = 0; i < 32; i++) {
            CallBuilder.msg(0x300 + i).inline(CallBuilder.bytes(8, i)).send(stalled, 0);
            harness.settle();
            for (ReceivedCall c : handler.takeAll()) {
                reply(c, 16);
            }
            harness.settle();
        }
        for (int i = 0; i < 8; i++) {
            CallBuilder.msg(0x400 + i).inline(CallBuilder.bytes(8, i)).writableReplyChunk(stalled, 8192).send(stalled, 0);
            harness.settle();
            for (ReceivedCall c : handler.takeAll()) {
                reply(c, 8000);
            }
            harness.settle();
        }
        int repliesBefore = other.takeReplies().size();

        CallBuilder.msg(0x500).inline(CallBuilder.bytes(8, 1)).writableReplyChunk(other, 8192).send(other, 0);
        harness.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size());
        reply(calls.get(0), 8000);
        harness.settle();
        assertEquals(1, other.takeReplies().size(), "the other client's reply-chunk reply arrived");
        assertEquals(0, statsOf(other).get(Counter.REPLY_STAGING_STARVATION), "it never waited for staging");
        assertEquals(1, statsOf(other).get(Counter.REPLIES_REPLY_CHUNK));
        assertEquals(0, repliesBefore);
        assertEquals(1, statsOf(stalled).get(Counter.REPLY_STAGING_SHARE_WAITS),
                "past three quarters of the slab its replies wait for its own SENDs");
        assertEquals(0, statsOf(stalled).get(Counter.REPLY_STAGING_STARVATION));
    }

    @Test
    void oneClientWithSixteenOneMebibyteReadChunksInFlightFitsTheDefaultPools() throws Exception {
        // The Linux client's default: 16 x 1 MiB WRITEs in flight (read chunks the server pulls).
        // Before, the default pools (16 MiB of sinks per device, divided among the loops) could
        // not hold them: READ_SINK_STARVATION moved.
        start(TransportConfig.builder().completionLoops(1).build(), LoopbackFabric.builder().build());
        RawPeer client = harness.connect();
        List<CallBuilder> sent = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            CallBuilder call = CallBuilder.msg(0x600 + i).inline(CallBuilder.bytes(128, i))
                    .chunk(CallBuilder.bytes(1 << 20, i));
            call.send(client, 0);
            sent.add(call);
        }
        harness.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(16, calls.size(), "all 16 pulled and held at once: " + harness.transport().statistics());
        for (int i = 0; i < 16; i++) {
            assertEquals(sent.get(i).xid(), calls.get(i).xid());
            assertEquals(sent.get(i).expectedBody().length, calls.get(i).bodyLength());
        }
        TransportStatistics stats = statsOf(client);
        assertEquals(0, stats.get(Counter.READ_SINK_STARVATION));
        assertEquals(0, stats.get(Counter.READ_SINK_SHARE_WAITS));
        // And their 1 MiB replies through the reply chunk (a READ's data) all stage at once.
        for (ReceivedCall c : calls) {
            c.release();
        }
        harness.settle();
        client.memory().resetSource();
        for (int i = 0; i < 16; i++) {
            CallBuilder.msg(0x700 + i).inline(CallBuilder.bytes(8, i)).writableReplyChunk(client, (1 << 20) + 64)
                    .send(client, 0);
        }
        harness.settle();
        List<ReceivedCall> reads = handler.takeAll();
        assertEquals(16, reads.size());
        for (ReceivedCall c : reads) {
            reply(c, 1 << 20);
        }
        harness.settle();
        assertEquals(16, client.takeReplies().size(), "16 replies");
        assertEquals(16, stats.get(Counter.REPLIES_REPLY_CHUNK));
        assertEquals(0, stats.get(Counter.REPLY_STAGING_STARVATION));
        assertEquals(0, stats.get(Counter.REPLY_STAGING_SHARE_WAITS));
    }

    /** reply() - answer a call with an RPC reply of {@code length} bytes (xid first), then release it. */
    private static void reply(ReceivedCall call, int length) {
        ByteBuffer reply = ByteBuffer.allocate(length);
        reply.putInt(0, call.xid());
        call.detachReply().send(reply, -1);
        call.release();
    }
}
