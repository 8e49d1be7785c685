package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.client.InlineCallTest.array;
import static org.rpcrdma4j.client.ReplyShapesTest.cause;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/** Credits (RFC 8166 §3.3.1): the grant honoured, out-of-order replies matched by xid. */
class CreditTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();

    @Test
    void oneCallUntilTheFirstGrantThenNeverMoreThanGranted() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = submit(h, 1, 6);
            List<ByteBuffer> received = h.peer.takeMessages();
            assertEquals(1, received.size(), "one credit before any grant");
            assertEquals(1, h.client.outstandingCalls());
            assertEquals(5, h.client.waitingCalls());

            answer(h, received.get(0), 3);
            received = h.peer.takeMessages();
            assertEquals(3, received.size(), "the grant of 3");
            assertEquals(2, h.client.waitingCalls());

            answer(h, received.get(0), 3);
            List<ByteBuffer> more = h.peer.takeMessages();
            assertEquals(1, more.size(), "one more as one credit came back");
            answer(h, received.get(1), 3);
            more.addAll(h.peer.takeMessages());
            answer(h, received.get(2), 3);
            more.addAll(h.peer.takeMessages());
            assertEquals(2, more.size());
            for (ByteBuffer m : more) {
                answer(h, m, 3);
            }
            for (CompletableFuture<RpcReply> c : calls) {
                c.join();
            }
            assertEquals(3, h.peer.maxUnanswered(), "the peer never held more calls than it granted");
            assertEquals(3, h.client.statistics().maxOutstanding());
        }
    }

    @Test
    void outOfOrderRepliesReachTheirOwnCalls() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            submit(h, 100, 1).get(0);
            answer(h, h.takeOne(), 4);
            List<CompletableFuture<RpcReply>> calls = submit(h, 1, 4);
            List<ByteBuffer> received = h.peer.takeMessages();
            assertEquals(4, received.size());
            int[] order = {2, 0, 3, 1};
            for (int i : order) {
                answer(h, received.get(i), 4);
            }
            for (int i = 0; i < 4; i++) {
                RpcReply reply = calls.get(i).join();
                assertEquals(1 + i, reply.xid());
                assertArrayEquals(array(RpcMessages.reply(1 + i, RpcMessages.pattern(16, 1 + i))), array(reply.body()));
            }
        }
    }

    @Test
    void aShrunkGrantHoldsNewCallsBackUntilEnoughAreAnswered() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            submit(h, 100, 1);
            answer(h, h.takeOne(), 4);
            submit(h, 1, 4);
            List<ByteBuffer> received = h.peer.takeMessages();
            assertEquals(4, received.size());
            submit(h, 10, 2);
            answer(h, received.get(0), 2);
            answer(h, received.get(1), 2);
            assertEquals(0, h.peer.takeMessages().size(), "2 outstanding of a grant of 2");
            answer(h, received.get(2), 2);
            assertEquals(1, h.peer.takeMessages().size());
            assertEquals(2, h.client.outstandingCalls());
        }
    }

    @Test
    void aZeroGrantCountsAsOneAndAHugeGrantAsOurReceives() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            submit(h, 1, 1);
            answer(h, h.takeOne(), 0);
            submit(h, 2, 2);
            assertEquals(1, h.peer.takeMessages().size(), "grant 0 is treated as 1");
            answer(h, ByteBuffer.wrap(Wire.words().i(2).toBytes()), -1);
            assertEquals(1, h.peer.takeMessages().size());
            submit(h, 20, 10);
            assertEquals(7, h.peer.takeMessages().size(), "never more than the 8 receives we posted");
        }
    }

    @Test
    void creditsCanBeIgnoredToTestAServersOverrunHandling() throws Exception {
        ClientConfig overrun = ClientConfig.builder().maxCredits(8).enforceCredits(false).build();
        try (Harness h = Harness.connected(overrun)) {
            submit(h, 1, 5);
            assertEquals(5, h.peer.takeMessages().size(), "sent without waiting for a grant");
        }
    }

    @Test
    void aSecondCallWithAnOutstandingXidIsRefused() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            submit(h, 7, 1);
            CompletableFuture<RpcReply> dup = submit(h, 7, 1).get(0);
            assertInstanceOf(IllegalStateException.class, cause(dup));
            assertTrue(cause(dup).getMessage().contains("outstanding"));
            assertEquals(1, h.peer.takeMessages().size());
            assertEquals(2, h.client.statistics().liveRegistrations(), "nothing of the refused call stays registered");
        }
    }

    /** Submits {@code count} calls with xids from {@code firstXid}. */
    private static List<CompletableFuture<RpcReply>> submit(Harness h, int firstXid, int count) {
        List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            calls.add(h.client.call(CallRequest.builder(RpcMessages.call(firstXid + i, new byte[4])).build()));
        }
        h.settle();
        return calls;
    }

    /** Answers a received call (its xid is its first word) with a grant. */
    private static void answer(Harness h, ByteBuffer call, int grant) throws Exception {
        int xid = call.getInt(0);
        h.reply(Replies.msg(xid, grant, RpcMessages.reply(xid, RpcMessages.pattern(16, xid))), grant);
    }
}
