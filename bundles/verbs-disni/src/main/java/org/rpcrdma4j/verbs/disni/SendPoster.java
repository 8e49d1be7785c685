package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvSendWR;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Posts a chain of send-queue work requests with one ibv_post_send, so one doorbell per chain:
 * a reply's RDMA Writes and its Send go to the device together, as svcrdma chains them. The
 * poster writes DiSNI 2.1's send records itself, into a staging area it owns, and posts them
 * through {@link DisniExtensions#postSend}; DiSNI's own stateful call cannot do this, as it fixes
 * one request's opcode and SGE count when it is built. A chain longer than {@link #BATCH} goes in
 * pieces of {@code BATCH}, one post each, in order ({@link ChainPoster}, with the failure
 * indices). Steady state allocates nothing.
 *
 * <p>Send With Invalidate: the key to invalidate goes into imm_data / invalidate_rkey (one union in
 * ibv_send_wr, offset {@value #RECORD_INVALIDATE_RKEY} of the record), which libdisni passes
 * through, and into wr.rdma.rkey as well (offset {@value #RECORD_RDMA_RKEY}): rdma-core's siw
 * provider reads the STag to invalidate from there, and with only invalidate_rkey set it names
 * STag 0 (or the previous request's rkey), which the iWARP peer answers with a TERMINATE "STag
 * cannot be invalidated" that kills the connection. Offered only where the device reports the
 * capability (IBV_DEVICE_MEM_MGT_EXTENSIONS).
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 */
final class SendPoster extends ChainPoster<SendWorkRequest> {
    /** enum ibv_wr_opcode IBV_WR_SEND_WITH_INV (DiSNI 2.1 names no constant for it). */
    static final int IBV_WR_SEND_WITH_INV = 9;
    static final int RECORD_OPCODE = 28;
    static final int RECORD_SEND_FLAGS = 32;
    /** Offset of imm_data / invalidate_rkey in the send record. */
    static final int RECORD_INVALIDATE_RKEY = 36;
    static final int RECORD_REMOTE_ADDRESS = 40;
    /** Offset of wr.rdma.rkey in the record (after wr.rdma.remote_addr at 40). */
    static final int RECORD_RDMA_RKEY = 48;

    private final long qp;
    private final QueuePairAttributes attributes;
    private final boolean remoteInvalidation;
    private long posts;

    /**
     * @param qp the DiSNI queue pair handle (its struct ibv_qp)
     * @param remoteInvalidation whether the device can post SEND_WITH_INV (its capabilities say so);
     *        without it such a request is refused with EINVAL before the device sees it
     */
    SendPoster(long qp, QueuePairAttributes attributes, boolean remoteInvalidation) {
        super(DisniExtensions.SEND_RECORD_BYTES, attributes.maxSendSge());
        this.qp = qp;
        this.attributes = attributes;
        this.remoteInvalidation = remoteInvalidation;
    }

    /** @return how many times ibv_post_send was called: the doorbells rung */
    long posts() {
        return posts;
    }

    @Override
    SendWorkRequest next(SendWorkRequest wr) {
        return wr.next();
    }

    @Override
    void check(SendWorkRequest wr, int index) throws VerbsException {
        int ibvOpcode = ibvOpcode(wr.opcode());
        if (ibvOpcode < 0) {
            // RDMA_READ_WITH_INV, LOCAL_INV, REG_MR: user-space verbs have no fast registration (the capabilities say no)
            throw new VerbsException(wr.opcode() + " is not supported by user-space verbs", Errno.EINVAL, index);
        }
        if (ibvOpcode == IBV_WR_SEND_WITH_INV && !remoteInvalidation) {
            throw new VerbsException(wr + ": the device cannot post SEND_WITH_INV (no IBV_DEVICE_MEM_MGT_EXTENSIONS)", Errno.EINVAL, index);
        }
        if (wr.sgeCount() > attributes.maxSendSge()) {
            throw new VerbsException(wr + " has more SGEs than the queue pair's " + attributes.maxSendSge(), Errno.EINVAL, index);
        }
        if ((wr.flags() & SendWorkRequest.INLINE) != 0 && inlineLength(wr) > attributes.maxInlineData()) {
            throw new VerbsException(wr + " carries more inline data than " + attributes.maxInlineData(), Errno.EINVAL, index);
        }
    }

    @Override
    void write(int slot, SendWorkRequest wr) {
        int ibvOpcode = ibvOpcode(wr.opcode());
        int sges = wr.sgeCount();
        PostRecords records = records();
        records.writeHead(slot, wr.id(), sges);
        ByteBuffer b = records.buffer();
        int at = records.recordOffset(slot);
        b.putInt(at + RECORD_OPCODE, ibvOpcode);
        b.putInt(at + RECORD_SEND_FLAGS, wr.flags());
        boolean invalidate = ibvOpcode == IBV_WR_SEND_WITH_INV;
        b.putInt(at + RECORD_INVALIDATE_RKEY, invalidate ? wr.invalidateKey() : 0);
        b.putLong(at + RECORD_REMOTE_ADDRESS, wr.remoteAddress());
        // libsiw (rdma-core's siw provider) takes the STag a SEND_WITH_INV invalidates from
        // wr.rdma.rkey, not from invalidate_rkey; a SEND leaves wr.rdma unused everywhere else.
        b.putInt(at + RECORD_RDMA_RKEY, invalidate ? wr.invalidateKey() : wr.rkey());
        for (int i = 0; i < sges; i++) {
            records.putSge(slot, i, wr.sge(i));
        }
        records.link(slot);
    }

    @Override
    void postRecords(long first) throws IOException {
        posts++;
        DisniExtensions.postSend(qp, first);
    }

    @Override
    String postName() {
        return "ibv_post_send";
    }

    /** @return the enum ibv_wr_opcode, or -1 for an opcode user-space verbs cannot post */
    private static int ibvOpcode(SendOpcode opcode) {
        switch (opcode) {
            case SEND:
                return IbvSendWR.IBV_WR_SEND;
            case RDMA_WRITE:
                return IbvSendWR.IBV_WR_RDMA_WRITE;
            case RDMA_READ:
                return IbvSendWR.IBV_WR_RDMA_READ;
            case SEND_WITH_INV:
                return IBV_WR_SEND_WITH_INV;
            default:
                return -1;
        }
    }

    private static long inlineLength(SendWorkRequest wr) {
        long total = 0;
        for (int i = 0; i < wr.sgeCount(); i++) {
            total += wr.sge(i).length();
        }
        return total;
    }
}
