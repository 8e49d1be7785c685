package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.client.InlineCallTest.array;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;

/**
 * The client's side of RFC 8167 against a scripted server: backward calls are told from replies
 * by the RPC message type, answered by the registered callback program with inline RDMA_MSG
 * replies granting the client's backward credits; the extra receives are posted (a server may
 * have its forward replies and the granted backward calls in flight at once); a backward call
 * never counts as a forward reply or grant; without a callback program it is dropped and counted.
 */
class BackchannelClientTest {
    private static final int CREDITS = 4;
    private static final int BACKWARD = 2;

    /** A backward call: RDMA_MSG header asking {@code credits}, then an RPC call with one int argument. */
    private static ByteBuffer backwardCall(int xid, int argument) {
        ByteBuffer rpc = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES);
        RpcMessage.putCallHeader(rpc, xid, 0x4000_0001, 1, 1).putInt(argument).flip();
        return Replies.msg(xid, 8, rpc);
    }

    private static ByteBuffer doubling(ByteBuffer call) {
        ByteBuffer reply = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES);
        return RpcMessage.putAcceptedReplyHeader(reply, call.getInt(RpcMessage.XID_OFFSET), RpcMessage.SUCCESS)
                .putInt(2 * call.getInt(RpcMessage.argumentsOffset(call))).flip();
    }

    /** Settles until the peer has received {@code n} more messages (backward replies come from callback threads). */
    private static List<ByteBuffer> awaitMessages(Harness h, int n) throws Exception {
        List<ByteBuffer> received = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (received.size() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + received.size() + " of " + n + " messages came");
            h.settle();
            received.addAll(h.peer.takeMessages());
            Thread.sleep(1);
        }
        return received;
    }

    @Test
    void backwardCallsAreAnsweredInlineWithTheBackwardGrantWhileForwardCallsAreOutstanding() throws Exception {
        ClientConfig config = ClientConfig.builder().maxCredits(CREDITS).backchannel(BackchannelClientTest::doubling, BACKWARD)
                .build();
        try (Harness h = Harness.connected(config)) {
            // Take the forward grant, then fill it: CREDITS forward calls outstanding.
            CompletableFuture<RpcReply> first = h.call(CallRequest.builder(RpcMessages.call(1, new byte[4])).build());
            h.takeOne();
            h.reply(Replies.msg(1, CREDITS, RpcMessages.reply(1, new byte[0])), CREDITS);
            first.join();
            List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
            for (int i = 0; i < CREDITS; i++) {
                calls.add(h.call(CallRequest.builder(RpcMessages.call(10 + i, new byte[4])).build()));
            }
            assertEquals(CREDITS, h.peer.takeMessages().size());
            // The server sends its BACKWARD calls and then all its forward replies: every one needs a posted receive.
            h.peer.send(backwardCall(0x100, 21), 0);
            h.peer.send(backwardCall(0x101, 50), 0);
            for (int i = 0; i < CREDITS; i++) {
                h.peer.send(Replies.msg(10 + i, CREDITS, RpcMessages.reply(10 + i, new byte[0])), CREDITS);
            }
            List<ByteBuffer> replies = awaitMessages(h, BACKWARD);
            for (CompletableFuture<RpcReply> c : calls) {
                assertTrue(c.isDone() && !c.isCompletedExceptionally(), "every forward call got its own reply");
            }
            replies.sort((a, b) -> Integer.compare(a.getInt(0), b.getInt(0)));
            for (int i = 0; i < BACKWARD; i++) {
                ByteBuffer m = replies.get(i);
                assertEquals(0x100 + i, m.getInt(0), "xid");
                assertEquals(1, m.getInt(4), "version 1");
                assertEquals(BACKWARD, m.getInt(8), "the client grants its backward credits");
                assertEquals(0, m.getInt(12), "RDMA_MSG: inline only");
                assertArrayEquals(new int[] {0, 0, 0}, new int[] {m.getInt(16), m.getInt(20), m.getInt(24)}, "no chunks");
                assertEquals(0x100 + i, m.getInt(28), "the RPC reply's xid");
                assertEquals(1, m.getInt(32), "REPLY");
                assertEquals(i == 0 ? 42 : 100, m.getInt(52), "the callback program's result");
            }
            ClientStatistics s = h.client.statistics();
            assertEquals(BACKWARD, s.backwardCalls());
            assertEquals(BACKWARD, s.backwardReplies());
            assertEquals(0, s.unmatchedReplies(), "a backward call is never taken for a reply");
            assertEquals(CREDITS, s.creditLimit(), "nor its credit field for a forward grant");
        }
    }

    @Test
    void aCallbackProgramThatFailsIsAnsweredSystemErr() throws Exception {
        ClientConfig config = ClientConfig.builder().backchannel(call -> {
            throw new IllegalStateException("the callback program failed");
        }, 1).build();
        try (Harness h = Harness.connected(config)) {
            h.peer.send(backwardCall(0x200, 1), 0);
            ByteBuffer m = awaitMessages(h, 1).get(0);
            assertEquals(0x200, m.getInt(28));
            assertEquals(0, m.getInt(36), "MSG_ACCEPTED");
            assertEquals(5, m.getInt(48), "SYSTEM_ERR: the server is answered, not left waiting");
        }
    }

    @Test
    void withoutACallbackProgramABackwardCallIsDroppedAndCounted() throws Exception {
        try (Harness h = Harness.connected(ClientConfig.builder().maxCredits(CREDITS).build())) {
            CompletableFuture<RpcReply> call = h.call(CallRequest.builder(RpcMessages.call(0x300, new byte[4])).build());
            h.takeOne();
            h.peer.send(backwardCall(0x300, 1), 0); // same xid as the forward call: still not its reply
            h.settle();
            assertEquals(1, h.client.statistics().backwardCallsDropped());
            assertFalse(call.isDone(), "a backward call is not the forward call's reply");
            h.reply(Replies.msg(0x300, CREDITS, RpcMessages.reply(0x300, new byte[] {7})), CREDITS);
            assertEquals(0x300, array(call.join().body().duplicate()).length > 0 ? call.join().xid() : -1);
            assertTrue(h.peer.takeMessages().isEmpty(), "nothing was sent back");
        }
    }
}
