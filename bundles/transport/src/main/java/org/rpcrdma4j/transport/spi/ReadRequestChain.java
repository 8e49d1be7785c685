package org.rpcrdma4j.transport.spi;

import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;

/**
 * ReadRequestChain - the reusable send-queue work requests of one READ: at most
 * {@link #MAX_REQUESTS} (REG_MR, READ, LOCAL_INV), linked in the order added.
 *
 * <p>The transport owns the chain and its ids; a {@link ReadSink} only {@link #add adds}
 * requests and fills their opcode-specific fields. Every request is signaled, so each one's
 * completion frees its send-queue slot. Not thread-safe; confined to the completion thread.
 */
public final class ReadRequestChain {
    /** The most requests one READ needs: REG_MR, READ, LOCAL_INV. */
    public static final int MAX_REQUESTS = 3;

    private final SendWorkRequest[] requests = new SendWorkRequest[MAX_REQUESTS];
    private long id;
    private int size;

    /**
     * Creates a chain whose requests carry up to {@code maxSge} SGEs.
     *
     * @param maxSge the SGE capacity of each request (the device's max SGEs per READ)
     */
    public ReadRequestChain(int maxSge) {
        for (int i = 0; i < MAX_REQUESTS; i++) {
            requests[i] = new SendWorkRequest(maxSge);
        }
    }

    /**
     * begin() - empty the chain for a new READ.
     *
     * @param id the id every request of the chain carries (the transport's READ slot)
     * @return this chain
     */
    public ReadRequestChain begin(long id) {
        this.id = id;
        this.size = 0;
        for (SendWorkRequest r : requests) {
            r.next(null);
        }
        return this;
    }

    /**
     * add() - append a request.
     *
     * @param opcode REG_MR, RDMA_READ, RDMA_READ_WITH_INV or LOCAL_INV
     * @return the request, reset for {@code opcode}, signaled, with its id set
     * @throws IllegalStateException when the chain is full
     */
    public SendWorkRequest add(SendOpcode opcode) {
        if (size == MAX_REQUESTS) {
            throw new IllegalStateException("a READ chain holds at most " + MAX_REQUESTS + " requests");
        }
        SendWorkRequest r = requests[size].reset(opcode, id, SendWorkRequest.SIGNALED);
        if (size > 0) {
            requests[size - 1].next(r);
        }
        size++;
        return r;
    }

    /** @return the number of requests added since {@link #begin} */
    public int size() {
        return size;
    }

    /** @return the first request (the head to post), or null when empty */
    public SendWorkRequest first() {
        return size == 0 ? null : requests[0];
    }

    /**
     * @param index 0 to {@code size() - 1}
     * @return the request at that place of the chain
     */
    public SendWorkRequest get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " of a chain of " + size);
        }
        return requests[index];
    }
}
