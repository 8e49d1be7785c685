package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Posts a chain of receives with one ibv_post_recv per {@link #BATCH} requests: the transport's
 * batched refill reaches the device as one post. Like {@link SendPoster}, it writes DiSNI 2.1's
 * receive records itself into a staging area it owns and posts them through
 * {@link DisniExtensions#postReceive}; DiSNI's own receive call fixes everything, the buffer
 * included, when it is built. Steady state allocates nothing.
 *
 * <p>Failures keep the contract's {@code failedIndex}: a receive with more SGEs than the queue
 * pair allows is refused at its index after the receives before it were posted; one the device
 * refuses is reported at the index bad_wr names.
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 */
final class ReceivePoster {
    /** Receives per ibv_post_recv: libdisni translates chains this long on its stack. */
    static final int BATCH = 16;

    static final int RECORD_NEXT = 8;
    static final int RECORD_SG_LIST = 16;
    static final int RECORD_NUM_SGE = 24;

    private final long qp;
    private final QueuePairAttributes attributes;
    private final PostRecords records;

    /** @param qp the DiSNI queue pair handle (its struct ibv_qp) */
    ReceivePoster(long qp, QueuePairAttributes attributes) {
        this.qp = qp;
        this.attributes = attributes;
        this.records = new PostRecords(BATCH, DisniExtensions.RECEIVE_RECORD_BYTES, attributes.maxReceiveSge());
    }

    /** Checks and posts the chain starting at first. */
    void post(ReceiveWorkRequest first) throws VerbsException {
        int batchStart = 0;
        int written = 0;
        int index = 0;
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next(), index++) {
            if (wr.sgeCount() > attributes.maxReceiveSge()) {
                if (written > 0) {
                    execute(batchStart, written);
                }
                throw new VerbsException("receive " + wr.id() + " has more SGEs than the queue pair's " + attributes.maxReceiveSge(),
                        Errno.EINVAL, index);
            }
            write(written, wr);
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

    /** The staging area (for tests: the records of the latest post). */
    PostRecords records() {
        return records;
    }

    private void write(int slot, ReceiveWorkRequest wr) {
        ByteBuffer b = records.buffer();
        int at = records.recordOffset(slot);
        int sges = wr.sgeCount();
        b.putLong(at, wr.id());
        b.putLong(at + RECORD_NEXT, 0L);
        b.putLong(at + RECORD_SG_LIST, records.sgeAddress(slot));
        b.putInt(at + RECORD_NUM_SGE, sges);
        for (int i = 0; i < sges; i++) {
            records.putSge(slot, i, wr.sge(i));
        }
        records.link(slot, RECORD_NEXT);
    }

    private void execute(int batchStart, int count) throws VerbsException {
        try {
            DisniExtensions.postReceive(qp, records.recordAddress(0));
        } catch (IOException e) {
            VerbsException v = DisniErrors.toVerbs("ibv_post_recv of " + count + " receive(s)", e);
            throw new VerbsException(v.getMessage(), v.errno(), batchStart + Math.max(0, v.failedIndex()));
        }
    }
}
