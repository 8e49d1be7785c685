package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.rpcrdma4j.client.InlineCallTest.array;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;

/** Calls too large to send inline: RDMA_NOMSG with a position-zero read chunk; the inline/NOMSG boundary. */
class NomsgCallTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();
    /** The header of an RDMA_MSG call without chunks. */
    private static final int MSG_HEADER = 28;

    @Test
    void largeCallTravelsInAPositionZeroChunk() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x61, RpcMessages.pattern(6000, 4));
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).build());

            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(24);
            long offset = sent.getLong(32);
            byte[] expected = Wire.words().i(0x61, 1, 8, RpcRdma.RDMA_NOMSG).readItem(0, handle, message.remaining(), offset).i(0, 0, 0)
                    .toBytes();
            assertArrayEquals(expected, array(sent), "header only");
            assertArrayEquals(array(message), h.peer.read(handle, message.remaining(), offset));
            assertEquals(1, h.client.statistics().nomsgCalls());

            h.reply(Replies.msg(0x61, 8, RpcMessages.reply(0x61, new byte[0])), 8);
            f.join();
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void forcedNomsgWithADdpItemSendsTheRestAtPositionZero() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            byte[] data = RpcMessages.pattern(30, 8);
            ByteBuffer message = Wire.words().bytes(RpcMessages.call(0x62, data)).i(0xdeadbeef).toBuffer();
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).readChunk(44, 30).mode(CallMode.NOMSG).build());

            ByteBuffer sent = h.takeOne();
            int restLength = message.remaining() - 32;
            int h0 = sent.getInt(24);
            long o0 = sent.getLong(32);
            int h1 = sent.getInt(48);
            long o1 = sent.getLong(56);
            byte[] expected = Wire.words().i(0x62, 1, 8, RpcRdma.RDMA_NOMSG).readItem(0, h0, restLength, o0).readItem(44, h1, 30, o1)
                    .i(0, 0, 0).toBytes();
            assertArrayEquals(expected, array(sent));
            byte[] rest = Wire.words().bytes(message.slice(0, 44)).bytes(message.slice(44 + 32, 4)).toBytes();
            assertArrayEquals(rest, h.peer.read(h0, restLength, o0), "the message without the item and its padding");
            assertArrayEquals(data, h.peer.read(h1, 30, o1));

            h.reply(Replies.msg(0x62, 8, RpcMessages.reply(0x62, new byte[0])), 8);
            f.join();
        }
    }

    @Test
    void autoSendsInlineUpToTheServersReceiveSizeAndNomsgBeyond() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            int fits = Harness.PEER_RECEIVE_SIZE - MSG_HEADER;
            ByteBuffer exact = RpcMessages.call(0x63, new byte[fits - RpcMessages.callDataOffset()]);
            assertEquals(fits, exact.remaining());
            h.call(CallRequest.builder(exact).build());
            ByteBuffer sent = h.takeOne();
            assertEquals(Harness.PEER_RECEIVE_SIZE, sent.remaining());
            assertEquals(RpcRdma.RDMA_MSG, sent.getInt(12));
            h.reply(Replies.msg(0x63, 8, RpcMessages.reply(0x63, new byte[0])), 8);

            ByteBuffer over = RpcMessages.call(0x64, new byte[fits - RpcMessages.callDataOffset() + 4]);
            h.call(CallRequest.builder(over).build());
            assertEquals(RpcRdma.RDMA_NOMSG, h.takeOne().getInt(12));
            h.reply(Replies.msg(0x64, 8, RpcMessages.reply(0x64, new byte[0])), 8);
            assertEquals(1, h.client.statistics().inlineCalls());
            assertEquals(1, h.client.statistics().nomsgCalls());
        }
    }

    @Test
    void inlineModeRefusesACallThatDoesNotFit() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x65, new byte[5000]);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).mode(CallMode.INLINE).build());
            CompletionException e = assertThrows(CompletionException.class, f::join);
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertEquals(0, h.peer.takeMessages().size(), "nothing was sent");
            assertEquals(2, h.client.statistics().liveRegistrations(), "nothing stays registered");
            assertEquals(0, h.client.outstandingCalls());
        }
    }
}
