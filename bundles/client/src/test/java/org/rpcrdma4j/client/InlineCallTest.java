package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;

/** Inline calls (RDMA_MSG without chunks) and inline replies. */
class InlineCallTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();

    @Test
    void inlineCallIsTheHeaderThenTheMessage() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x1234, RpcMessages.pattern(101, 3));
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).build());
            // xid, vers 1, 8 credits requested, RDMA_MSG, no read list, no write list, no reply chunk
            byte[] expected = Wire.words().i(0x1234, 1, 8, RpcRdma.RDMA_MSG, 0, 0, 0).bytes(message).toBytes();
            assertArrayEquals(expected, array(h.takeOne()));
            assertFalse(f.isDone());

            ByteBuffer body = RpcMessages.reply(0x1234, RpcMessages.pattern(77, 9));
            h.reply(Replies.msg(0x1234, 5, body), 5);
            RpcReply reply = f.join();
            assertEquals(0x1234, reply.xid());
            assertEquals(RpcRdma.RDMA_MSG, reply.proc());
            assertEquals(5, reply.credits());
            assertFalse(reply.viaReplyChunk());
            assertEquals(0, reply.writeChunkCount());
            assertArrayEquals(array(body), array(reply.body()));
            assertTrue(reply.invalidatedKey().isEmpty());
            ClientStatistics stats = h.client.statistics();
            assertEquals(1, stats.callsSent());
            assertEquals(1, stats.inlineCalls());
            assertEquals(1, stats.repliesReceived());
            assertEquals(5, stats.creditLimit());
            assertEquals(2, stats.liveRegistrations(), "only the receive and send slabs stay registered");
        }
    }

    @Test
    void replyBodySurvivesTheReuseOfItsReceiveBuffer() throws Exception {
        ClientConfig oneReceive = ClientConfig.builder().maxCredits(1).build();
        try (Harness h = Harness.connected(oneReceive)) {
            CompletableFuture<RpcReply> first = h.call(CallRequest.builder(RpcMessages.call(1, new byte[8])).build());
            h.takeOne();
            ByteBuffer firstBody = RpcMessages.reply(1, RpcMessages.pattern(200, 1));
            h.reply(Replies.msg(1, 1, firstBody), 1);

            CompletableFuture<RpcReply> second = h.call(CallRequest.builder(RpcMessages.call(2, new byte[8])).build());
            h.takeOne();
            ByteBuffer secondBody = RpcMessages.reply(2, RpcMessages.pattern(200, 99));
            h.reply(Replies.msg(2, 1, secondBody), 1);

            assertArrayEquals(array(firstBody), array(first.join().body()));
            assertArrayEquals(array(secondBody), array(second.join().body()));
        }
    }

    @Test
    void blockingCallDrivesTheClientUntilTheReply() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(42, new byte[12])).build());
            h.takeOne();
            h.peer.send(Replies.msg(42, 2, RpcMessages.reply(42, new byte[0])), 2);
            h.fabric.runUntilIdle();
            RpcReply reply = h.client.await(f, java.time.Duration.ofSeconds(30));
            assertEquals(42, reply.xid());
        }
    }

    static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
