package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * A large reply is encoded straight into the loop's registered reply staging
 * ({@link PendingReply#largerReplyBuffer}) and its DDP item pushed from there by RDMA WRITE, not
 * copied at the post: the client gets the same bytes, the extent is given back on every path
 * (posted, abandoned, sent from another buffer, dropped at close), and a reply that waits for
 * staging at its post lets such replies behind it pass instead of waiting for ever on the staging
 * they hold.
 */
class ReplyEncodedInStagingTest {
    /** A reply's DDP item: large enough to be encoded in staging (ReplyJob.ENCODE_IN_STAGING_MIN). */
    private static final int ITEM = 80 * 1024;
    /** Room for the RPC reply header before the item, as CallXdr asks for. */
    private static final int HEADER_ROOM = 1024;

    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void aLargeReplyIsPostedFromTheStagingItWasEncodedInto() throws Exception {
        long before = start(TransportConfig.builder().credits(4).backchannelCredits(0).build());

        PendingReply reply = call(harness, client, 0x910, 0);
        ByteBuffer memory = reply.largerReplyBuffer(HEADER_ROOM + ITEM);
        assertTrue(memory.isDirect());
        assertTrue(harness.usage().replyStagingBytes() >= HEADER_ROOM + ITEM,
                "the extent is held while the reply is encoded: " + harness.usage());
        int item = encode(memory, 0x910, 7);
        reply.send(memory, item);
        harness.settle();

        byte[] r = onlyReply(client);
        assertEquals(0x910, word(r, 0));
        assertEquals(RpcRdma.RDMA_MSG, word(r, 3));
        assertEquals(1, word(r, 5), "the write chunk is echoed");
        assertEquals(ITEM, word(r, 8), "with the bytes written into it");
        assertArrayEquals(CallBuilder.bytes(ITEM, 7), client.memory().sinkBytes(0, ITEM), "the item, as encoded");
        assertEquals(before + 1, count(harness, Counter.REPLIES_ENCODED_IN_STAGING));
        assertEquals(0, harness.usage().replyStagingBytes(), "given back when the SEND completed");
    }

    @Test
    void theExtentComesBackWhetherTheReplyIsAbandonedSentFromElsewhereEmptyOrDroppedAtClose() throws Exception {
        long before = start(TransportConfig.builder().credits(4).backchannelCredits(0).build());

        PendingReply abandoned = call(harness, client, 0x920, 0);
        assertTrue(abandoned.largerReplyBuffer(HEADER_ROOM + ITEM).isDirect());
        assertTrue(harness.usage().replyStagingBytes() > 0);
        abandoned.abandon();
        assertEquals(0, harness.usage().replyStagingBytes(), "an abandoned reply gives its extent back at once");

        // Encoded into the extent, but sent from a buffer of the program's own (a copy, say).
        PendingReply elsewhere = call(harness, client, 0x921, 0);
        ByteBuffer staged = elsewhere.largerReplyBuffer(HEADER_ROOM + ITEM);
        int item = encode(staged, 0x921, 9);
        ByteBuffer own = ByteBuffer.allocate(staged.remaining()).put(staged).flip();
        staged.clear().put(new byte[staged.capacity()]); // the program reuses the memory it was lent
        elsewhere.send(own, item);
        harness.settle();
        onlyReply(client);
        assertArrayEquals(CallBuilder.bytes(ITEM, 9), client.memory().sinkBytes(0, ITEM),
                "the bytes of the buffer sent, not of the extent");
        assertEquals(before, count(harness, Counter.REPLIES_ENCODED_IN_STAGING));
        assertEquals(0, harness.usage().replyStagingBytes());

        // A READ at the end of the file: lent staging, the reply carries an empty item (nothing to WRITE).
        PendingReply atEof = call(harness, client, 0x923, 0);
        ByteBuffer small = atEof.largerReplyBuffer(HEADER_ROOM + ITEM);
        RpcMessage.putAcceptedReplyHeader(small.clear(), 0x923, RpcMessage.SUCCESS);
        int empty = small.position();
        atEof.send(small.putInt(0).flip(), empty);
        harness.settle();
        byte[] r = onlyReply(client);
        assertEquals(RpcRdma.RDMA_MSG, word(r, 3));
        assertEquals(0, word(r, 8), "nothing written into the write chunk");
        assertEquals(before, count(harness, Counter.REPLIES_ENCODED_IN_STAGING), "no WRITE read the extent");
        assertEquals(0, harness.usage().replyStagingBytes(), "given back all the same");

        PendingReply dropped = call(harness, client, 0x922, 0);
        ByteBuffer late = dropped.largerReplyBuffer(HEADER_ROOM + ITEM);
        int lateItem = encode(late, 0x922, 3);
        client.disconnect();
        harness.settle();
        dropped.send(late, lateItem);
        harness.settle();
        assertEquals(1, count(harness, Counter.REPLIES_DROPPED));
        assertEquals(0, harness.usage().replyStagingBytes(), "a dropped reply gives its extent back");
    }

    /**
     * A DDP item in the write chunk and the rest too large to go inline: the message without the
     * item goes through the reply chunk, so it cannot be written from the extent as it lies (the
     * item sits in the middle). The reply is moved out of staging (a copy, the extent given back)
     * and goes the usual way.
     */
    @Test
    void aReplyThatCannotBePostedFromItsExtentAsItLiesIsMovedOutOfIt() throws Exception {
        long before = start(TransportConfig.builder().credits(4).backchannelCredits(0).build());
        int tail = 6000; // results after the item: more than the client's 4 KiB receive
        CallBuilder.msg(0x940).inline(CallBuilder.bytes(40, 1))
                .writeChunk(client.memory().sinkRkey(), ITEM, client.memory().sinkAddress(0))
                .replyChunk(client.memory().sinkRkey(), 16 * 1024, client.memory().sinkAddress(512 * 1024))
                .send(client, 0);
        harness.settle();
        ReceivedCall call = handler.takeAll().get(0);
        PendingReply reply = call.detachReply();
        call.release();
        ByteBuffer memory = reply.largerReplyBuffer(HEADER_ROOM + ITEM + tail);
        int item = encode(memory, 0x940, 5);
        memory.limit(memory.limit() + tail).put(memory.limit() - tail, CallBuilder.bytes(tail, 6));
        assertTrue(harness.usage().replyStagingBytes() > 0, "encoded in staging");
        reply.send(memory, item);
        harness.settle();

        byte[] r = onlyReply(client);
        assertEquals(RpcRdma.RDMA_NOMSG, word(r, 3));
        assertEquals(ITEM, word(r, 8), "the item went to the write chunk");
        assertArrayEquals(CallBuilder.bytes(ITEM, 5), client.memory().sinkBytes(0, ITEM));
        byte[] reduced = client.memory().sinkBytes(512 * 1024, item + 4 + tail);
        assertEquals(0x940, ByteBuffer.wrap(reduced).getInt(0), "the message, in the reply chunk");
        assertEquals(ITEM, ByteBuffer.wrap(reduced).getInt(item), "the item's length word stays");
        assertArrayEquals(CallBuilder.bytes(tail, 6), Arrays.copyOfRange(reduced, item + 4, item + 4 + tail),
                "the results after the item follow it, without the item");
        assertEquals(before, count(harness, Counter.REPLIES_ENCODED_IN_STAGING), "not posted from the extent");
        assertEquals(0, harness.usage().replyStagingBytes());
    }

    /**
     * The connection's share of a 256 KiB slab is 192 KiB. Two replies encoded in staging hold 2 x
     * 82 KiB of it; the reply ahead of them was encoded elsewhere and needs 80 KiB at its post:
     * over the share, it waits for the connection's own replies to give staging back. They are
     * behind it: they must pass it, or nothing moves.
     */
    @Test
    void aReplyWaitingForStagingLetsTheRepliesEncodedInStagingBehindItPass() throws Exception {
        TransportConfig config = TransportConfig.builder().credits(8).backchannelCredits(0).replyStagingBytes(256 * 1024)
                .build();
        start(config);
        long sharedWaits = count(harness, Counter.REPLY_STAGING_SHARE_WAITS);
        Map<Integer, Integer> sinkOf = new HashMap<>();
        PendingReply ahead = call(harness, client, 0x930, 0);
        sinkOf.put(0x930, 0);
        PendingReply[] behind = {call(harness, client, 0x931, 256 * 1024), call(harness, client, 0x932, 512 * 1024)};
        sinkOf.put(0x931, 256 * 1024);
        sinkOf.put(0x932, 512 * 1024);
        ByteBuffer[] staged = new ByteBuffer[behind.length];
        int[] items = new int[behind.length];
        for (int i = 0; i < behind.length; i++) {
            staged[i] = behind[i].largerReplyBuffer(HEADER_ROOM + ITEM);
            items[i] = encode(staged[i], behind[i].xid(), 20 + i);
        }
        assertEquals(2 * (HEADER_ROOM + ITEM), harness.usage().replyStagingBytes(), "both encoded in staging");

        ByteBuffer heap = ByteBuffer.allocate(HEADER_ROOM + ITEM);
        ahead.send(heap, encode(heap, 0x930, 10));
        harness.settle();
        assertEquals(List.of(), client.takeReplies(), "over its share: it waits");
        assertEquals(sharedWaits + 1, count(harness, Counter.REPLY_STAGING_SHARE_WAITS));

        for (int i = 0; i < behind.length; i++) {
            behind[i].send(staged[i], items[i]);
        }
        harness.settle();
        List<byte[]> replies = client.takeReplies();
        List<Integer> order = new ArrayList<>();
        for (byte[] r : replies) {
            order.add(word(r, 0));
        }
        assertEquals(List.of(0x931, 0x932, 0x930), order,
                "the two in staging pass the one waiting for it, which follows once they gave theirs back");
        for (byte[] r : replies) {
            int xid = word(r, 0);
            assertEquals(ITEM, word(r, 8), "xid 0x" + Integer.toHexString(xid) + ": its item written");
            int seed = xid == 0x930 ? 10 : 20 + (xid - 0x931);
            assertArrayEquals(CallBuilder.bytes(ITEM, seed), client.memory().sinkBytes(sinkOf.get(xid), ITEM),
                    "xid 0x" + Integer.toHexString(xid) + ": its own bytes in its own write chunk");
        }
        assertEquals(0, harness.usage().replyStagingBytes());
    }

    private TransportHarness harness;
    private RawPeer client;

    /**
     * start() - a transport with {@code config}, a connected client, and the staging slab
     * registered ({@link #registerStaging}).
     *
     * @return the replies counted as written from staging so far
     */
    private long start(TransportConfig config) throws Exception {
        harness = new TransportHarness(LoopbackFabric.deterministic(), config, handler);
        client = harness.connect();
        registerStaging(harness, client);
        return count(harness, Counter.REPLIES_ENCODED_IN_STAGING);
    }

    @AfterEach
    void stop() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    /**
     * registerStaging() - the slab is registered by the first post that needs it (a worker never
     * registers it): one large reply, copied into staging at its post, does that.
     */
    private void registerStaging(TransportHarness harness, RawPeer client) throws Exception {
        PendingReply first = call(harness, client, 0x900, 768 * 1024);
        ByteBuffer memory = first.largerReplyBuffer(HEADER_ROOM + ITEM);
        assertNotNull(memory);
        first.send(memory, encode(memory, 0x900, 1));
        harness.settle();
        onlyReply(client);
        assertEquals(0, count(harness, Counter.REPLIES_ENCODED_IN_STAGING), "no slab registered until that post");
    }

    /** call() - a call offering one write chunk of {@link #ITEM} bytes at {@code sinkAt} of the client's sink; its reply. */
    private PendingReply call(TransportHarness harness, RawPeer client, int xid, int sinkAt) throws Exception {
        CallBuilder.msg(xid).inline(CallBuilder.bytes(40, xid))
                .writeChunk(client.memory().sinkRkey(), ITEM, client.memory().sinkAddress(sinkAt)).send(client, 0);
        harness.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size());
        PendingReply reply = calls.get(0).detachReply();
        calls.get(0).release();
        return reply;
    }

    /**
     * encode() - an accepted RPC reply whose results are one opaque of {@link #ITEM} bytes (seeded),
     * flipped.
     *
     * @return the offset of the item's length word
     */
    private static int encode(ByteBuffer b, int xid, int seed) {
        b.clear();
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS);
        int item = b.position();
        b.putInt(ITEM).put(CallBuilder.bytes(ITEM, seed)).flip();
        return item;
    }

    private static byte[] onlyReply(RawPeer client) {
        List<byte[]> replies = client.takeReplies();
        assertEquals(1, replies.size());
        return replies.get(0);
    }

    private static long count(TransportHarness harness, Counter counter) {
        return harness.transport().statistics().get(counter);
    }

    private static int word(byte[] m, int index) {
        return ByteBuffer.wrap(m).getInt(index * 4);
    }
}
