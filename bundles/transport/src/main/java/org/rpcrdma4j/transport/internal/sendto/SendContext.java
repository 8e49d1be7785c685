package org.rpcrdma4j.transport.internal.sendto;

import java.nio.ByteBuffer;

import org.rpcrdma4j.transport.internal.common.WorkRequestIds;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;

/**
 * SendContext - one pooled, registered send buffer and its reusable SEND work request.
 *
 * <p>The buffer holds a transport header (and, once replies are sent, the inline RPC reply);
 * further SGEs may name other registered memory. After it lie {@link SendQueue#ITEM_ROOM} more
 * registered bytes that a reply's small DDP item is written from. Owned by its {@link SendQueue}; taken with
 * {@link SendQueue#acquire()}, given back by posting it (the completion returns it) or by
 * {@link SendQueue#abandon}. Used under the connection's send lock.
 */
public final class SendContext {
    private final int index;
    private final MemoryRegion region;
    private final int offset;
    private final ByteBuffer buffer;
    private final SendWorkRequest request;
    /** The staging extent this SEND's reply data was pushed from, freed when the SEND completes. */
    private int stagingOffset;
    private int stagingLength;
    /** Whether this SEND carries an RPC reply counted in the transport's replies in transit. */
    private boolean carriesReply;
    /**
     * RDMA WRITEs of this reply that were posted although its SEND was not (the chain's post
     * failed after them): the context, and its staging extent, which those WRITEs read, are
     * released when the last of them completes, not before.
     */
    int writesBeforeRelease;
    /**
     * The send-queue slots this SEND's completion gives back: its own and those of the
     * unsignaled RDMA WRITEs chained before it, which a signaled completion after them retires.
     */
    private int slots = 1;

    SendContext(int index, MemoryRegion region, int offset, int length, int maxSge) {
        this.index = index;
        this.region = region;
        this.offset = offset;
        this.buffer = region.buffer().slice(offset, length);
        this.request = new SendWorkRequest(maxSge);
    }

    int index() {
        return index;
    }

    /** @return the registered memory of the send buffer and of its item room */
    MemoryRegion region() {
        return region;
    }

    /**
     * @return where in {@link #region()} this context's {@link SendQueue#ITEM_ROOM} bytes for its
     *         reply's DDP item begin: right after the send buffer
     */
    int itemOffset() {
        return offset + buffer.capacity();
    }

    /** @return the send buffer; write the message from index 0 */
    public ByteBuffer buffer() {
        return buffer;
    }

    /**
     * prepareSend() - make the request a signaled SEND of the buffer's first {@code length} bytes.
     *
     * @return the request, for more SGEs
     */
    public SendWorkRequest prepareSend(int length) {
        return prepareSend(length, SendOpcode.SEND);
    }

    /**
     * prepareSend() - make the request a signaled SEND or SEND_WITH_INV of the buffer's first
     * {@code length} bytes (the caller sets the key to invalidate).
     *
     * @return the request, for more SGEs
     */
    public SendWorkRequest prepareSend(int length, SendOpcode opcode) {
        request.reset(opcode, WorkRequestIds.of(WorkRequestIds.SEND, index), SendWorkRequest.SIGNALED);
        request.next(null);
        return request.addSge(region, offset, length);
    }

    SendWorkRequest request() {
        return request;
    }

    /** retires() - this SEND's completion retires {@code writes} unsignaled WRITEs besides itself. */
    void retires(int writes) {
        slots = writes + 1;
    }

    /** @return the send-queue slots this SEND's completion gives back, then 1 again for the next use */
    int takeSlots() {
        int n = slots;
        slots = 1;
        return n;
    }

    /** holdStaging() - remember the staging extent to free when this SEND completes. */
    void holdStaging(int offset, int length) {
        stagingOffset = offset;
        stagingLength = length;
    }

    void carriesReply(boolean value) {
        carriesReply = value;
    }

    boolean carriesReply() {
        return carriesReply;
    }

    /** @return the staging extent's length, 0 when the SEND holds none */
    int stagingLength() {
        return stagingLength;
    }

    int stagingOffset() {
        return stagingOffset;
    }
}
