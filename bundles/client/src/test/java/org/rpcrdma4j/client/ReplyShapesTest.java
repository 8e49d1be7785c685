package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.client.InlineCallTest.array;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.CompletionStatus;

/** Replies of every shape: write chunk, reply chunk (RDMA_NOMSG), RDMA_ERROR, malformed, unmatched. */
class ReplyShapesTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();

    @Test
    void writeChunkCarriesTheReplysDdpItemWithTheReportedLength() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x71, new byte[8]);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).writeChunk(8192).build());

            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(28);
            long offset = sent.getLong(36);
            // no read list; write list of one chunk of one segment; no reply chunk
            byte[] expected = Wire.words().i(0x71, 1, 8, RpcRdma.RDMA_MSG, 0, 1, 1).segment(handle, 8192, offset).i(0, 0).bytes(message)
                    .toBytes();
            assertArrayEquals(expected, array(sent));

            byte[] data = RpcMessages.pattern(3001, 11);
            assertEquals(CompletionStatus.SUCCESS, h.peer.write(handle, offset, data));
            ByteBuffer body = RpcMessages.reply(0x71, new byte[0]);
            h.reply(Replies.msgWithWriteChunk(0x71, 8, handle, 3001, offset, body), 8);

            RpcReply reply = f.join();
            assertEquals(1, reply.writeChunkCount());
            assertArrayEquals(data, array(reply.writeChunk(0)), "exactly the bytes reported");
            assertArrayEquals(array(body), array(reply.body()));
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void replyChunkCarriesALargeReplyAsNomsg() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            ByteBuffer message = RpcMessages.call(0x72, new byte[4]);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).replyChunk(16384).build());

            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(32);
            long offset = sent.getLong(40);
            // empty read and write lists, reply chunk of one segment
            byte[] expected = Wire.words().i(0x72, 1, 8, RpcRdma.RDMA_MSG, 0, 0, 1, 1).segment(handle, 16384, offset).bytes(message)
                    .toBytes();
            assertArrayEquals(expected, array(sent));

            ByteBuffer body = RpcMessages.reply(0x72, RpcMessages.pattern(10_000, 13));
            assertEquals(CompletionStatus.SUCCESS, h.peer.write(handle, offset, array(body)));
            h.reply(Replies.nomsg(0x72, 8, handle, body.remaining(), offset), 8);

            RpcReply reply = f.join();
            assertTrue(reply.viaReplyChunk());
            assertEquals(RpcRdma.RDMA_NOMSG, reply.proc());
            assertArrayEquals(array(body), array(reply.body()));
        }
    }

    @Test
    void multiSegmentReplyChunkFilledInOrder() throws Exception {
        ClientConfig segments = ClientConfig.builder().maxCredits(8).maxSegmentLength(4096).build();
        try (Harness h = Harness.connected(segments)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x73, new byte[4])).replyChunk(10_000).build());
            ByteBuffer sent = h.takeOne();
            assertEquals(3, sent.getInt(28), "three segments of at most 4096 bytes");
            int handle = sent.getInt(32);
            long offset = sent.getLong(40);
            ByteBuffer body = RpcMessages.reply(0x73, RpcMessages.pattern(6000, 2));
            int total = body.remaining();
            h.peer.write(handle, offset, array(body));
            ByteBuffer header = Wire.words().i(0x73, 1, 8, RpcRdma.RDMA_NOMSG, 0, 0, 1, 2).segment(handle, 4096, offset)
                    .segment(handle, total - 4096, offset + 4096).toBuffer();
            h.reply(header, 8);
            assertArrayEquals(array(body), array(f.join().body()));
        }
    }

    @Test
    void errChunkAndErrVersFailOnlyTheirCall() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> chunk = h.call(CallRequest.builder(RpcMessages.call(0x74, new byte[4])).build());
            h.takeOne();
            h.reply(Replies.errChunk(0x74, 4), 4);
            RdmaErrorException e1 = assertInstanceOf(RdmaErrorException.class, cause(chunk));
            assertEquals(RpcRdma.ERR_CHUNK, e1.errorCode());
            assertEquals(0x74, e1.xid());

            CompletableFuture<RpcReply> vers = h.call(CallRequest.builder(RpcMessages.call(0x75, new byte[4])).build());
            h.takeOne();
            h.reply(Replies.errVers(0x75, 4, 1, 1), 4);
            RdmaErrorException e2 = assertInstanceOf(RdmaErrorException.class, cause(vers));
            assertEquals(RpcRdma.ERR_VERS, e2.errorCode());
            assertEquals(1, e2.versLow());
            assertEquals(1, e2.versHigh());

            CompletableFuture<RpcReply> next = h.call(CallRequest.builder(RpcMessages.call(0x76, new byte[4])).build());
            h.takeOne();
            h.reply(Replies.msg(0x76, 4, RpcMessages.reply(0x76, new byte[0])), 4);
            assertEquals(0x76, next.join().xid(), "the connection goes on serving");
            assertEquals(2, h.client.statistics().rdmaErrors());
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void replyNamingMemoryNeverOfferedIsMalformed() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x77, new byte[4])).writeChunk(100).build());
            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(28);
            long offset = sent.getLong(36);
            h.reply(Replies.msgWithWriteChunk(0x77, 8, handle, 101, offset, RpcMessages.reply(0x77, new byte[0])), 8);
            MalformedReplyException e = assertInstanceOf(MalformedReplyException.class, cause(f));
            assertTrue(e.getMessage().contains("101 bytes reported"), e.getMessage());

            CompletableFuture<RpcReply> g = h.call(CallRequest.builder(RpcMessages.call(0x78, new byte[4])).writeChunk(100).build());
            sent = h.takeOne();
            h.reply(Replies.msgWithWriteChunk(0x78, 8, sent.getInt(28) + 1, 10, sent.getLong(36), RpcMessages.reply(0x78, new byte[0])), 8);
            assertInstanceOf(MalformedReplyException.class, cause(g));

            CompletableFuture<RpcReply> n = h.call(CallRequest.builder(RpcMessages.call(0x79, new byte[4])).build());
            h.takeOne();
            h.reply(Wire.words().i(0x79, 1, 8, RpcRdma.RDMA_NOMSG, 0, 0, 1, 1).segment(1, 4, 0).toBuffer(), 8);
            assertInstanceOf(MalformedReplyException.class, cause(n), "NOMSG without an offered reply chunk");

            CompletableFuture<RpcReply> v = h.call(CallRequest.builder(RpcMessages.call(0x7a, new byte[4])).build());
            h.takeOne();
            h.reply(Wire.words().i(0x7a, 2, 8, RpcRdma.RDMA_MSG, 0, 0, 0).toBuffer(), 8);
            assertTrue(cause(v).getMessage().contains("WRONG_VERSION"));
            assertEquals(4, h.client.statistics().malformedReplies());
        }
    }

    @Test
    void unmatchedAndTruncatedRepliesAreCountedAndDropped() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x7b, new byte[4])).build());
            h.takeOne();
            h.reply(Replies.msg(0x999, 8, RpcMessages.reply(0x999, new byte[0])), 8);
            h.reply(Wire.words().i(0x7b, 1).toBuffer(), 8);
            assertEquals(2, h.client.statistics().unmatchedReplies());
            assertEquals(1, h.client.outstandingCalls(), "the call still waits for its reply");
            h.reply(Replies.msg(0x7b, 8, RpcMessages.reply(0x7b, new byte[0])), 8);
            assertEquals(0x7b, f.join().xid());
        }
    }

    static Throwable cause(CompletableFuture<?> f) {
        return assertThrows(CompletionException.class, f::join).getCause();
    }
}
