package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
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
 * included, when it is built. Steady state allocates nothing; failures as {@link ChainPoster}
 * says.
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 */
final class ReceivePoster extends ChainPoster<ReceiveWorkRequest> {
    private final long qp;
    private final QueuePairAttributes attributes;

    /** @param qp the DiSNI queue pair handle (its struct ibv_qp) */
    ReceivePoster(long qp, QueuePairAttributes attributes) {
        super(DisniExtensions.RECEIVE_RECORD_BYTES, attributes.maxReceiveSge());
        this.qp = qp;
        this.attributes = attributes;
    }

    @Override
    ReceiveWorkRequest next(ReceiveWorkRequest wr) {
        return wr.next();
    }

    @Override
    void check(ReceiveWorkRequest wr, int index) throws VerbsException {
        if (wr.sgeCount() > attributes.maxReceiveSge()) {
            throw new VerbsException("receive " + wr.id() + " has more SGEs than the queue pair's " + attributes.maxReceiveSge(),
                    Errno.EINVAL, index);
        }
    }

    @Override
    void write(int slot, ReceiveWorkRequest wr) {
        int sges = wr.sgeCount();
        PostRecords records = records();
        records.writeHead(slot, wr.id(), sges);
        for (int i = 0; i < sges; i++) {
            records.putSge(slot, i, wr.sge(i));
        }
        records.link(slot);
    }

    @Override
    void postRecords(long first) throws IOException {
        DisniExtensions.postReceive(qp, first);
    }

    @Override
    String postName() {
        return "ibv_post_recv";
    }
}
