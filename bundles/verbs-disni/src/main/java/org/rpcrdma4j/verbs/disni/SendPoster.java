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
 * pieces of {@code BATCH}, one post each, in order. Steady state allocates nothing.
 *
 * <p>Failures keep the contract's {@code failedIndex}: a request the poster refuses (opcode, SGE
 * count, inline length) is reported at its index after the requests before it were posted; a
 * request the device refuses is reported at the index ibv_post_send's bad_wr names, the requests
 * before it being posted.
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
final class SendPoster {
    /** enum ibv_wr_opcode IBV_WR_SEND_WITH_INV (DiSNI 2.1 names no constant for it). */
    static final int IBV_WR_SEND_WITH_INV = 9;
    /** Requests per ibv_post_send: libdisni translates chains this long on its stack. */
    static final int BATCH = 16;

    static final int RECORD_NEXT = 8;
    static final int RECORD_SG_LIST = 16;
    static final int RECORD_NUM_SGE = 24;
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
    private final PostRecords records;
    private long posts;

    /**
     * @param qp the DiSNI queue pair handle (its struct ibv_qp)
     * @param remoteInvalidation whether the device can post SEND_WITH_INV (its capabilities say so);
     *        without it such a request is refused with EINVAL before the device sees it
     */
    SendPoster(long qp, QueuePairAttributes attributes, boolean remoteInvalidation) {
        this.qp = qp;
        this.attributes = attributes;
        this.remoteInvalidation = remoteInvalidation;
        this.records = new PostRecords(BATCH, DisniExtensions.SEND_RECORD_BYTES, attributes.maxSendSge());
    }

    /** Checks and posts the chain starting at first: one ibv_post_send per {@link #BATCH} requests. */
    void post(SendWorkRequest first) throws VerbsException {
        int batchStart = 0;
        int written = 0;
        int index = 0;
        for (SendWorkRequest wr = first; wr != null; wr = wr.next(), index++) {
            int ibvOpcode;
            try {
                ibvOpcode = check(wr, index);
            } catch (VerbsException refused) {
                if (written > 0) {
                    execute(batchStart, written);
                }
                throw refused;
            }
            write(written, wr, ibvOpcode);
            if (++written == BATCH) {
                execute(batchStart, written);
                batchStart += written;
                written = 0;
            }
        }
        if (written > 0) {
            execute(batchStart, written);
        }
    }

    /** @return how many times ibv_post_send was called: the doorbells rung */
    long posts() {
        return posts;
    }

    /** The staging area (for tests: the records of the latest post). */
    PostRecords records() {
        return records;
    }

    /** @return the request's enum ibv_wr_opcode, once it is known to be postable */
    private int check(SendWorkRequest wr, int index) throws VerbsException {
        int ibvOpcode = ibvOpcode(wr.opcode(), index);
        if (ibvOpcode == IBV_WR_SEND_WITH_INV && !remoteInvalidation) {
            throw new VerbsException(wr + ": the device cannot post SEND_WITH_INV (no IBV_DEVICE_MEM_MGT_EXTENSIONS)", Errno.EINVAL, index);
        }
        if (wr.sgeCount() > attributes.maxSendSge()) {
            throw new VerbsException(wr + " has more SGEs than the queue pair's " + attributes.maxSendSge(), Errno.EINVAL, index);
        }
        if ((wr.flags() & SendWorkRequest.INLINE) != 0 && inlineLength(wr) > attributes.maxInlineData()) {
            throw new VerbsException(wr + " carries more inline data than " + attributes.maxInlineData(), Errno.EINVAL, index);
        }
        return ibvOpcode;
    }

    private void write(int slot, SendWorkRequest wr, int ibvOpcode) {
        ByteBuffer b = records.buffer();
        int at = records.recordOffset(slot);
        int sges = wr.sgeCount();
        b.putLong(at, wr.id());
        b.putLong(at + RECORD_NEXT, 0L);
        b.putLong(at + RECORD_SG_LIST, records.sgeAddress(slot));
        b.putInt(at + RECORD_NUM_SGE, sges);
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
        records.link(slot, RECORD_NEXT);
    }

    /** Posts the first count records; batchStart is the chain index of the first. */
    private void execute(int batchStart, int count) throws VerbsException {
        posts++;
        try {
            DisniExtensions.postSend(qp, records.recordAddress(0));
        } catch (IOException e) {
            VerbsException v = DisniErrors.toVerbs("ibv_post_send of " + count + " work request(s)", e);
            throw new VerbsException(v.getMessage(), v.errno(), batchStart + Math.max(0, v.failedIndex()));
        }
    }

    private static int ibvOpcode(SendOpcode opcode, int index) throws VerbsException {
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
                // RDMA_READ_WITH_INV, LOCAL_INV, REG_MR: user-space verbs have no fast registration (the capabilities say no)
                throw new VerbsException(opcode + " is not supported by user-space verbs", Errno.EINVAL, index);
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
