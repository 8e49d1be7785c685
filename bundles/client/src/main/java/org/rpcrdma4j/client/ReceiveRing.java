package org.rpcrdma4j.client;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The client's receive buffers: one slab registered once, cut into equal buffers, one posted
 * receive per credit, reposted in a batch after each round of completions.
 *
 * <p>Threading: posting happens on the completion-processing thread only (and once before
 * connecting). Ownership: the ring owns its region; {@link #release} MUST be called after the
 * queue pair is destroyed.
 */
final class ReceiveRing {
    /** Work request ids of receives carry this tag above the buffer index. */
    static final long TAG = 1L << 32;

    private final MemoryRegion region;
    private final int bufferSize;
    private final ReceiveWorkRequest[] requests;
    private ReceiveWorkRequest batchHead;
    private ReceiveWorkRequest batchTail;

    private ReceiveRing(MemoryRegion region, int count, int bufferSize) {
        this.region = region;
        this.bufferSize = bufferSize;
        this.requests = new ReceiveWorkRequest[count];
        for (int i = 0; i < count; i++) {
            requests[i] = new ReceiveWorkRequest(1).id(TAG | i).buffer(region, i * bufferSize, bufferSize);
        }
    }

    /**
     * Registers a slab of {@code count} buffers of {@code bufferSize} bytes.
     *
     * @param registrar the client's registrar
     * @param count how many receives
     * @param bufferSize bytes per receive
     * @return the ring, owning its registration
     * @throws VerbsException when registration fails
     */
    static ReceiveRing create(Registrar registrar, int count, int bufferSize) throws VerbsException {
        ByteBuffer slab = ByteBuffer.allocateDirect(Math.multiplyExact(count, bufferSize));
        return new ReceiveRing(registrar.register(slab, Access.LOCAL_WRITE), count, bufferSize);
    }

    /**
     * Posts every receive of the ring.
     *
     * @param queuePair the connection's queue pair
     * @throws VerbsException when the post fails
     */
    void postAll(QueuePair queuePair) throws VerbsException {
        for (int i = 0; i < requests.length; i++) {
            repost(i);
        }
        flush(queuePair);
    }

    /**
     * Queues a receive for the next {@link #flush}.
     *
     * @param index a buffer index whose content has been consumed
     */
    void repost(int index) {
        ReceiveWorkRequest request = requests[index].next(null);
        if (batchHead == null) {
            batchHead = request;
        } else {
            batchTail.next(request);
        }
        batchTail = request;
    }

    /**
     * Posts the receives queued since the last flush as one chain.
     *
     * @param queuePair the connection's queue pair
     * @throws VerbsException when the post fails
     */
    void flush(QueuePair queuePair) throws VerbsException {
        ReceiveWorkRequest head = batchHead;
        batchHead = null;
        batchTail = null;
        if (head != null) {
            queuePair.postReceive(head);
        }
    }

    /**
     * @param id a work request id
     * @return whether it is one of this ring's receives
     */
    static boolean isReceive(long id) {
        return (id & ~0xffffffffL) == TAG;
    }

    /**
     * @param id a receive's work request id
     * @return its buffer index
     */
    int indexOf(long id) {
        return (int) id;
    }

    /** @return the slab */
    ByteBuffer buffer() {
        return region.buffer();
    }

    /**
     * @param index a buffer index
     * @return the absolute slab index of that buffer's first byte
     */
    int offsetOf(int index) {
        return index * bufferSize;
    }

    /**
     * Deregisters the slab.
     *
     * @param registrar the registrar that registered it
     * @return null, or the failure
     */
    VerbsException release(Registrar registrar) {
        return registrar.deregister(region);
    }
}
