package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;

/**
 * LargeReplyBuffers - the memory a reply that outgrows its pending reply's own buffer is encoded
 * into: direct buffers in 64 KiB size classes, shared by every connection of a transport and
 * reused.
 *
 * <p>Why: oncrpc4j grows an XDR stream that runs out of room by allocating a larger heap buffer
 * and copying what was encoded. An NFS READ of 1 MiB would do that on every call: a 1 MiB heap
 * allocation (a humongous object for G1, zeroed) per reply, nearly all the bytes the server
 * allocates under 1 MiB sequential reads. A pending reply borrows one of these instead ({@link ReplyJob#largerReplyBuffer}) and gives it back when it
 * is recycled, which is after the transport has copied the reply into registered memory or
 * dropped it: never while anything still reads it.
 *
 * <p>Bounded: buffers up to {@link #LARGEST} bytes, and at most {@code retainedLimit} bytes kept
 * idle; a request beyond the largest class gets null (the caller grows its stream on the heap),
 * a buffer given back beyond the idle limit is left to the garbage collector.
 *
 * <p>Threading: any thread (workers encode replies, the completion loops recycle them); one lock
 * per size class, held for a push or a pop.
 */
public final class LargeReplyBuffers {
    /** Size classes are multiples of this. */
    static final int CLASS_BYTES = 64 * 1024;
    /** The largest buffer handed out: a 1 MiB NFS READ (or a 16 MiB one) with room for its reply header. */
    public static final int LARGEST = 16 * 1024 * 1024 + CLASS_BYTES;
    private static final int CLASSES = LARGEST / CLASS_BYTES + 1;

    private final long retainedLimit;
    private final ByteBuffer[][] idle = new ByteBuffer[CLASSES][];
    private final int[] idleCount = new int[CLASSES];
    private final Object[] locks = new Object[CLASSES];
    private long retainedBytes;
    private long created;

    /**
     * @param retainedLimit the most bytes kept idle for reuse (not negative; 0 keeps none)
     */
    public LargeReplyBuffers(long retainedLimit) {
        if (retainedLimit < 0) {
            throw new IllegalArgumentException("retainedLimit must not be negative: " + retainedLimit);
        }
        this.retainedLimit = retainedLimit;
        for (int i = 0; i < CLASSES; i++) {
            locks[i] = new Object();
            idle[i] = new ByteBuffer[4];
        }
    }

    /**
     * take() - a cleared direct buffer of at least {@code capacity} bytes (its capacity is the
     * size class), or null when {@code capacity} exceeds {@link #LARGEST}.
     *
     * @param counters where an allocation (no idle buffer to reuse) is counted
     */
    public ByteBuffer take(int capacity, Counters counters) {
        if (capacity > LARGEST || capacity < 0) {
            return null;
        }
        int c = classOf(capacity);
        synchronized (locks[c]) {
            if (idleCount[c] > 0) {
                ByteBuffer b = idle[c][--idleCount[c]];
                idle[c][idleCount[c]] = null;
                adjustRetained(-b.capacity());
                return b.clear();
            }
        }
        synchronized (this) {
            created++;
        }
        counters.increment(Counter.LARGE_REPLY_BUFFERS_ALLOCATED);
        return ByteBuffer.allocateDirect(c * CLASS_BYTES);
    }

    /** give() - a buffer from {@link #take} comes back: kept for reuse while the idle limit allows. */
    public void give(ByteBuffer buffer) {
        int c = buffer.capacity() / CLASS_BYTES;
        if (c * CLASS_BYTES != buffer.capacity() || c >= CLASSES || !buffer.isDirect()) {
            throw new IllegalArgumentException("not a buffer of this pool: " + buffer);
        }
        if (!adjustRetained(buffer.capacity())) {
            return; // beyond the idle limit: the collector frees it
        }
        synchronized (locks[c]) {
            if (idleCount[c] == idle[c].length) {
                ByteBuffer[] grown = new ByteBuffer[idle[c].length * 2];
                System.arraycopy(idle[c], 0, grown, 0, idleCount[c]);
                idle[c] = grown;
            }
            idle[c][idleCount[c]++] = buffer;
        }
    }

    /** @return bytes kept idle for reuse now */
    public synchronized long retainedBytes() {
        return retainedBytes;
    }

    /** @return buffers allocated since creation (a measure of how well reuse works) */
    public synchronized long created() {
        return created;
    }

    /** @return true when the change was made (a give within the limit, or any take) */
    private synchronized boolean adjustRetained(long delta) {
        if (delta > 0 && retainedBytes + delta > retainedLimit) {
            return false;
        }
        retainedBytes += delta;
        return true;
    }

    private static int classOf(int capacity) {
        return Math.max(1, (capacity + CLASS_BYTES - 1) / CLASS_BYTES);
    }
}
