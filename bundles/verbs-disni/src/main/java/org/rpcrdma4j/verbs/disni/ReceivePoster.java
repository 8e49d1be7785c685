package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostRecv;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ReceiveWorkRequest;
import org.rpcrdma4j.verbs.ScatterGatherElement;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Posts receives through DiSNI's stateful post-receive calls. DiSNI 2.1's receive call lets
 * nothing change after it is built (its RecvWRMod only reads the id), so calls are cached by
 * content: a direct-mapped table keyed by the work request id holds the call built for that id
 * and its SGEs. Re-posting a receive slot with the same id and buffer (what a pool of receive
 * contexts does) reuses its call and allocates nothing; a different buffer under the same id, or
 * a colliding id, rebuilds the slot's call.
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 */
final class ReceivePoster {
    private final IbvQP qp;
    private final QueuePairAttributes attributes;
    private final Slot[] slots;
    private final int mask;

    ReceivePoster(IbvQP qp, QueuePairAttributes attributes) {
        this.qp = qp;
        this.attributes = attributes;
        int size = Integer.highestOneBit(Math.max(16, attributes.receiveQueueDepth() * 4 - 1)) << 1;
        this.slots = new Slot[size];
        this.mask = size - 1;
    }

    /** Checks and posts one receive; index is its position in the caller's chain. */
    void post(ReceiveWorkRequest wr, int index) throws VerbsException {
        if (wr.sgeCount() > attributes.maxReceiveSge()) {
            throw new VerbsException("receive " + wr.id() + " has more SGEs than the queue pair's " + attributes.maxReceiveSge(),
                    Errno.EINVAL, index);
        }
        int at = (int) (mix(wr.id()) & mask);
        try {
            Slot slot = slots[at];
            if (slot == null || !slot.matches(wr)) {
                if (slot != null) {
                    slot.call.free();
                }
                slot = new Slot(wr, build(wr));
                slots[at] = slot;
            }
            slot.call.execute();
        } catch (IOException e) {
            VerbsException v = DisniErrors.toVerbs("ibv_post_recv of receive " + wr.id(), e);
            throw new VerbsException(v.getMessage(), v.errno(), index);
        }
    }

    private SVCPostRecv build(ReceiveWorkRequest request) throws IOException {
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(request.id());
        LinkedList<IbvSge> list = new LinkedList<>();
        for (int i = 0; i < request.sgeCount(); i++) {
            ScatterGatherElement element = request.sge(i);
            IbvSge sge = new IbvSge();
            sge.setAddr(element.address());
            sge.setLength(element.length());
            sge.setLkey(element.lkey());
            list.add(sge);
        }
        wr.setSg_list(list);
        wr.setNum_sge(request.sgeCount());
        List<IbvRecvWR> wrs = new ArrayList<>(1);
        wrs.add(wr);
        return qp.postRecv(wrs, null);
    }

    private static long mix(long id) {
        long h = id * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 32);
    }

    /** Frees every call built (their native command buffers). */
    void free() {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                slots[i].call.free();
                slots[i] = null;
            }
        }
    }

    /** A built call and the request content it was built from. */
    private static final class Slot {
        final long id;
        final long[] addresses;
        final int[] lengths;
        final int[] lkeys;
        final SVCPostRecv call;

        Slot(ReceiveWorkRequest wr, SVCPostRecv call) {
            this.id = wr.id();
            int n = wr.sgeCount();
            this.addresses = new long[n];
            this.lengths = new int[n];
            this.lkeys = new int[n];
            for (int i = 0; i < n; i++) {
                addresses[i] = wr.sge(i).address();
                lengths[i] = wr.sge(i).length();
                lkeys[i] = wr.sge(i).lkey();
            }
            this.call = call;
        }

        boolean matches(ReceiveWorkRequest wr) {
            if (wr.id() != id || wr.sgeCount() != addresses.length) {
                return false;
            }
            for (int i = 0; i < addresses.length; i++) {
                ScatterGatherElement sge = wr.sge(i);
                if (sge.address() != addresses[i] || sge.length() != lengths[i] || sge.lkey() != lkeys[i]) {
                    return false;
                }
            }
            return true;
        }
    }
}
