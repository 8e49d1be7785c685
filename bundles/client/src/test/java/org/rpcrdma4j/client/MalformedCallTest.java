package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.rpcrdma4j.client.InlineCallTest.array;
import static org.rpcrdma4j.client.ReplyShapesTest.cause;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;

/** The test hooks that send malformed headers on purpose, so transport tests can check each RDMA_ERROR. */
class MalformedCallTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();

    @Test
    void mutatorChangesTheVersionAndTheErrVersAnswerFailsTheCall() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x81, new byte[4]);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message)
                    .headerMutator((m, layout) -> m.putInt(layout.versOffset(), 2)).build());
            assertArrayEquals(Wire.words().i(0x81, 2, 8, RpcRdma.RDMA_MSG, 0, 0, 0).bytes(message).toBytes(), array(h.takeOne()));
            h.reply(Replies.errVers(0x81, 8, 1, 1), 8);
            assertEquals(RpcRdma.ERR_VERS, assertInstanceOf(RdmaErrorException.class, cause(f)).errorCode());
        }
    }

    @Test
    void layoutLocatesReadPositionsWriteCountsAndTheReplyChunk() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            byte[] data = RpcMessages.pattern(40, 1);
            HeaderLayout[] seen = new HeaderLayout[1];
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x82, data)).readChunk(44, 40).writeChunk(64)
                    .replyChunk(128).headerMutator((m, layout) -> {
                        seen[0] = layout;
                        m.putInt(layout.readPositionOffset(0), 46);
                        m.putInt(layout.writeChunkCountOffset(0), 0);
                        m.putInt(layout.replyChunkCountOffset(), 0x7fffffff);
                    }).build());
            HeaderLayout l = seen[0];
            assertEquals(16, l.readItemOffset(0));
            assertEquals(44, l.writeListOffset());
            assertEquals(44, l.writeChunkOffset(0));
            assertEquals(72, l.replyChunkOffset(), "after the write chunk (8 + 16 bytes) and the write list's terminator");
            assertEquals(96, l.headerLength());
            ByteBuffer sent = h.takeOne();
            assertEquals(46, sent.getInt(20), "misaligned position");
            assertEquals(1, sent.getInt(44), "write chunk present");
            assertEquals(0, sent.getInt(48), "zero-segment write chunk");
            assertEquals(1, sent.getInt(72), "reply chunk present");
            assertEquals(0x7fffffff, sent.getInt(76), "inflated reply chunk count");
            h.reply(Replies.errChunk(0x82, 8), 8);
            assertEquals(RpcRdma.ERR_CHUNK, assertInstanceOf(RdmaErrorException.class, cause(f)).errorCode());
            assertEquals(2, h.client.statistics().liveRegistrations(), "its three chunks deregistered");
        }
    }

    @Test
    void mutatorMayTruncateTheMessage() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x83, new byte[4])).expectNoReply()
                    .headerMutator((m, layout) -> m.limit(layout.procOffset())).build());
            assertArrayEquals(Wire.words().i(0x83, 1, 8).toBytes(), array(h.takeOne()));
            assertNull(f.join(), "a call expecting no reply completes once sent");
            assertEquals(0, h.client.outstandingCalls(), "its credit is back");
        }
    }

    @Test
    void rawBytesAreSentVerbatim() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer done = Wire.words().i(0x84, 1, 8, RpcRdma.RDMA_DONE).toBuffer();
            CompletableFuture<RpcReply> f = h.call(CallRequest.raw(done, false));
            assertArrayEquals(array(done), array(h.takeOne()));
            assertNull(f.join());

            ByteBuffer msgp = Wire.words().i(0x85, 1, 8, RpcRdma.RDMA_MSGP, 0, 0, 0, 0, 0).toBuffer();
            CompletableFuture<RpcReply> g = h.call(CallRequest.raw(msgp, true));
            assertArrayEquals(array(msgp), array(h.takeOne()));
            h.reply(Replies.errChunk(0x85, 8), 8);
            assertEquals(RpcRdma.ERR_CHUNK, assertInstanceOf(RdmaErrorException.class, cause(g)).errorCode());
            assertEquals(2, h.client.statistics().callsSent());
        }
    }

    @Test
    void rawBytesLargerThanTheServersReceiveSizeAreRefused() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.raw(ByteBuffer.allocate(Harness.PEER_RECEIVE_SIZE + 4), false));
            assertInstanceOf(IllegalArgumentException.class, cause(f));
            assertEquals(0, h.peer.takeMessages().size());
        }
    }
}
