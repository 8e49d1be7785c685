package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;

/**
 * CallXdr's reply memory: a reply whose DDP item is known up front (an NFS READ's data) is
 * encoded where it ends up, growing nothing; others start in the pending reply's own memory and
 * grow into a borrowed buffer only when they outgrow it.
 */
class CallXdrSizingTest {

    private static final int INLINE = 4096;

    /** A pending reply with an inline-sized buffer that records what it lends. */
    private static final class LendingReply implements PendingReply {
        final ByteBuffer own = ByteBuffer.allocate(INLINE);
        final List<Integer> borrowed = new ArrayList<>();

        @Override public int xid() { return 1; }
        @Override public RdmaConnection connection() { return null; }
        @Override public long writeChunkCapacity() { return 0; }
        @Override public long replyChunkCapacity() { return 0; }
        @Override public ByteBuffer replyBuffer() { return own.clear(); }
        @Override public ByteBuffer largerReplyBuffer(int capacity) {
            borrowed.add(capacity);
            return ByteBuffer.allocateDirect(capacity);
        }
        @Override public void send(ByteBuffer rpcReply, int ddpItemOffset) { }
        @Override public void abandon() { }
    }

    private static CallXdr stream(LendingReply reply, int itemBytes) {
        Buffer call = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, new byte[64]);
        return new CallXdr().begin(call, 0, reply, itemBytes);
    }

    /** Encodes a READ-like reply: a 128-byte header, then the data as an opaque. */
    private static ByteBuffer encodeRead(CallXdr xdr, int dataBytes) {
        xdr.beginEncoding();
        return encodeBody(xdr, dataBytes);
    }

    private static ByteBuffer encodeBody(CallXdr xdr, int dataBytes) {
        for (int i = 0; i < 32; i++) {
            xdr.xdrEncodeInt(i);
        }
        ByteBuffer data = ByteBuffer.allocate(dataBytes);
        for (int i = 0; i < dataBytes; i++) {
            data.put(i, (byte) i);
        }
        xdr.xdrEncodeByteBuffer(data);
        xdr.endEncoding();
        return xdr.encoded();
    }

    private static void assertReadReply(ByteBuffer encoded, int dataBytes) {
        int padded = (int) Xdr.roundUp(dataBytes);
        assertEquals(128 + 4 + padded, encoded.remaining());
        assertEquals(31, encoded.getInt(encoded.position() + 124));
        assertEquals(dataBytes, encoded.getInt(encoded.position() + 128));
        for (int i = 0; i < dataBytes; i++) {
            assertEquals((byte) i, encoded.get(encoded.position() + 132 + i), "data byte " + i);
        }
    }

    @Test
    void aReadReplySizedUpFrontGrowsNothing() {
        for (int count : new int[] {4096, 8192 + 3, 64 * 1024, 1 << 20}) {
            LendingReply reply = new LendingReply();
            CallXdr xdr = stream(reply, count);
            xdr.beginEncoding();
            Buffer first = xdr.asBuffer();
            assertEquals(List.of(CallXdr.REPLY_HEADER_ALLOWANCE + count), reply.borrowed, "borrowed once, up front");
            ByteBuffer encoded = encodeBody(xdr, count);
            assertSame(first, xdr.asBuffer(), count + ": the reply never left its first buffer");
            assertEquals(1, reply.borrowed.size(), count + ": nothing borrowed after");
            assertReadReply(encoded, count);
            assertTrue(encoded.isDirect(), "encoded where it was borrowed");
        }
    }

    @Test
    void aSmallItemStaysInThePendingRepliesOwnMemory() {
        LendingReply reply = new LendingReply();
        ByteBuffer encoded = encodeRead(stream(reply, 1024), 1024);
        assertReadReply(encoded, 1024);
        assertTrue(reply.borrowed.isEmpty(), "fits inline: nothing borrowed");
        assertSame(reply.own.array(), encoded.array());
    }

    @Test
    void aReplyWithoutAKnownItemGrowsWhenItOutgrowsItsMemory() {
        LendingReply reply = new LendingReply();
        ByteBuffer encoded = encodeRead(stream(reply, 0), 64 * 1024);
        assertReadReply(encoded, 64 * 1024);
        assertEquals(1, reply.borrowed.size(), "one growth, into a borrowed buffer");
    }

    @Test
    void aReplyLargerThanItsUpFrontSizeStillGrows() {
        LendingReply reply = new LendingReply();
        ByteBuffer encoded = encodeRead(stream(reply, 8192), 64 * 1024);
        assertReadReply(encoded, 64 * 1024);
        assertEquals(2, reply.borrowed.size(), "up front, then grown");
    }

    @Test
    void oneStreamViewsEveryBorrowedBufferThroughItsOwnTwoViews() {
        CallXdr xdr = new CallXdr();
        Set<Buffer> views = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 6; i++) {
            // sized up front: one borrowed buffer
            LendingReply reply = new LendingReply();
            xdr.begin(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, new byte[64]), 0, reply, 4096 + i);
            xdr.beginEncoding();
            views.add(xdr.asBuffer());
            assertReadReply(encodeBody(xdr, 4096 + i), 4096 + i);
            xdr.reset();
            // outgrowing its up-front size: from one borrowed buffer into another, the bytes kept
            LendingReply growing = new LendingReply();
            xdr.begin(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, new byte[64]), 0, growing, 8192);
            xdr.beginEncoding();
            views.add(xdr.asBuffer());
            ByteBuffer encoded = encodeBody(xdr, 64 * 1024 + i);
            views.add(xdr.asBuffer());
            assertEquals(2, growing.borrowed.size(), "up front, then grown");
            assertReadReply(encoded, 64 * 1024 + i);
            xdr.reset();
        }
        assertEquals(2, views.size(), "the stream's own two views, pointed at each borrowed buffer in turn");
    }
}
