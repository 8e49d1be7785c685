package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.rpcrdma4j.client.InlineCallTest.array;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.CompletionStatus;

/** Calls whose DDP items travel in read chunks (RDMA_MSG with a read list). */
class ReadChunkCallTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();
    /** Offsets in a header of the fields of read item i. */
    private static final int ITEM = 24;

    @Test
    void ddpItemInTheMiddleIsPulledAndItsPaddingNotSent() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            byte[] data = RpcMessages.pattern(1001, 5);
            ByteBuffer message = withTail(RpcMessages.call(0x51, data), 0xcafebabe, 0x01020304);
            int position = RpcMessages.callDataOffset();
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).readChunk(position, data.length).build());

            ByteBuffer sent = h.takeOne();
            int handle = sent.getInt(16 + 8);
            long offset = sent.getLong(16 + 16);
            byte[] expected = Wire.words().i(0x51, 1, 8, RpcRdma.RDMA_MSG).readItem(position, handle, 1001, offset).i(0, 0, 0)
                    .bytes(message.slice(0, position))
                    .bytes(message.slice(position + 1004, message.remaining() - position - 1004)).toBytes();
            assertArrayEquals(expected, array(sent), "header, then the message without the item and its 3 padding bytes");
            assertArrayEquals(data, h.peer.read(handle, data.length, offset), "the chunk holds exactly the item");
            assertEquals(3, h.client.statistics().liveRegistrations(), "the item's memory is registered while the call is out");

            h.reply(Replies.msg(0x51, 8, RpcMessages.reply(0x51, new byte[0])), 8);
            f.join();
            assertEquals(2, h.client.statistics().liveRegistrations(), "deregistered before the future completed");
            assertEquals(1, h.client.statistics().readChunks());
        }
    }

    @Test
    void severalItemsFromADirectMessageSplitIntoSegments() throws Exception {
        ClientConfig smallSegments = ClientConfig.builder().maxCredits(8).maxSegmentLength(512).build();
        try (Harness h = Harness.connected(smallSegments)) {
            byte[] a = RpcMessages.pattern(1000, 1);
            byte[] b = RpcMessages.pattern(700, 2);
            ByteBuffer heap = Wire.words().bytes(RpcMessages.call(0x52, a)).i(b.length).bytes(b).i(0, 0).toBuffer();
            ByteBuffer message = ByteBuffer.allocateDirect(heap.remaining()).put(heap.duplicate()).flip();
            int posA = 44;
            int posB = posA + 1000 + 4;
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(message).readChunk(posA, a.length).readChunk(posB, b.length).build());

            ByteBuffer sent = h.takeOne();
            int[] handles = new int[4];
            long[] offsets = new long[4];
            for (int i = 0; i < 4; i++) {
                handles[i] = sent.getInt(16 + i * ITEM + 8);
                offsets[i] = sent.getLong(16 + i * ITEM + 16);
            }
            assertEquals(handles[0], handles[1], "one registration per item");
            assertEquals(offsets[0] + 512, offsets[1], "segments follow each other");
            assertNotEquals(handles[0], handles[2]);
            Wire expected = Wire.words().i(0x52, 1, 8, RpcRdma.RDMA_MSG)
                    .readItem(posA, handles[0], 512, offsets[0]).readItem(posA, handles[1], 488, offsets[1])
                    .readItem(posB, handles[2], 512, offsets[2]).readItem(posB, handles[3], 188, offsets[3]).i(0, 0, 0)
                    .bytes(heap.slice(0, posA)).bytes(heap.slice(posA + 1000, 4)).bytes(heap.slice(posB + 700, 8));
            assertArrayEquals(expected.toBytes(), array(sent));
            assertArrayEquals(a, concat(h.peer.read(handles[0], 512, offsets[0]), h.peer.read(handles[1], 488, offsets[1])));
            assertArrayEquals(b, concat(h.peer.read(handles[2], 512, offsets[2]), h.peer.read(handles[3], 188, offsets[3])));

            h.reply(Replies.msg(0x52, 8, RpcMessages.reply(0x52, new byte[0])), 8);
            f.join();
            assertEquals(2, h.client.statistics().readChunks());
        }
    }

    @Test
    void readChunkMemoryIsNotWritableByThePeer() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            byte[] data = RpcMessages.pattern(64, 7);
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(0x53, data)).readChunk(44, 64).build());
            ByteBuffer sent = h.takeOne();
            CompletionStatus status = h.peer.write(sent.getInt(16 + 8), sent.getLong(16 + 16), new byte[64]);
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, status, "read chunks are registered REMOTE_READ only");
            h.settle();
            h.client.close();
            assertEquals(ClientClosedException.class, f.handle((r, e) -> e.getClass()).join());
        }
    }

    private static ByteBuffer withTail(ByteBuffer message, int... words) {
        return Wire.words().bytes(message).i(words).toBuffer();
    }

    private static byte[] concat(byte[] x, byte[] y) {
        byte[] c = new byte[x.length + y.length];
        System.arraycopy(x, 0, c, 0, x.length);
        System.arraycopy(y, 0, c, x.length, y.length);
        return c;
    }
}
