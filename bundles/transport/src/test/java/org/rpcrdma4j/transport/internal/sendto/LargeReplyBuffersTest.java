package org.rpcrdma4j.transport.internal.sendto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;

/** The shared pool of large reply buffers: size classes, reuse, the idle bound, refusals. */
class LargeReplyBuffersTest {
    private static final int MIB = 1 << 20;
    private final Counters counters = Counters.forTransport();

    @Test
    void aBufferGivenBackIsReusedForTheSameSizeClassAndCountedOnlyWhenAllocated() {
        LargeReplyBuffers pool = new LargeReplyBuffers(8L * MIB);
        ByteBuffer first = pool.take(MIB + 200, counters);
        assertTrue(first.isDirect());
        assertEquals(MIB + LargeReplyBuffers.CLASS_BYTES, first.capacity(), "rounded up to its 64 KiB class");
        assertEquals(0, first.position());
        assertEquals(first.capacity(), first.limit());
        first.put(new byte[100]);
        pool.give(first);
        assertEquals(first.capacity(), pool.retainedBytes());
        ByteBuffer again = pool.take(MIB + 60_000, counters);
        assertSame(first, again, "the same class reuses the idle buffer");
        assertEquals(0, again.position(), "cleared");
        assertEquals(0, pool.retainedBytes());
        ByteBuffer other = pool.take(MIB + 70_000, counters);
        assertNotSame(first, other, "the next class up is another buffer");
        assertEquals(2, pool.created());
        assertEquals(2, counters.get(Counter.LARGE_REPLY_BUFFERS_ALLOCATED));
    }

    @Test
    void idleBuffersBeyondTheLimitAreLeftToTheCollector() {
        LargeReplyBuffers pool = new LargeReplyBuffers(MIB + LargeReplyBuffers.CLASS_BYTES);
        ByteBuffer a = pool.take(MIB, counters);
        ByteBuffer b = pool.take(MIB, counters);
        pool.give(a);
        pool.give(b);
        assertEquals(MIB, pool.retainedBytes(), "one kept, the other beyond the limit");
        assertSame(a, pool.take(MIB, counters));
        ByteBuffer fresh = pool.take(MIB, counters);
        assertNotSame(b, fresh, "b was not kept");
        assertEquals(3, pool.created());
        LargeReplyBuffers none = new LargeReplyBuffers(0);
        none.give(none.take(10, counters));
        assertEquals(0, none.retainedBytes());
    }

    @Test
    void beyondTheLargestClassThereIsNoneAndForeignBuffersAreRefused() {
        LargeReplyBuffers pool = new LargeReplyBuffers(MIB);
        assertNull(pool.take(LargeReplyBuffers.LARGEST + 1, counters));
        assertEquals(LargeReplyBuffers.LARGEST, pool.take(LargeReplyBuffers.LARGEST, counters).capacity());
        assertEquals(LargeReplyBuffers.CLASS_BYTES, pool.take(1, counters).capacity(), "the smallest class");
        assertThrows(IllegalArgumentException.class, () -> pool.give(ByteBuffer.allocate(LargeReplyBuffers.CLASS_BYTES)));
        assertThrows(IllegalArgumentException.class, () -> pool.give(ByteBuffer.allocateDirect(1000)));
        assertThrows(IllegalArgumentException.class, () -> new LargeReplyBuffers(-1));
    }
}
