package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.util.MemBuf;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.impl.NatPollCqCall;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * A completion queue and its channel (DiSNI IbvCQ + IbvCompChannel), polled through DiSNI's
 * stateful poll calls, one per batch size up to {@link #BATCH}, built on first use and reused.
 *
 * <p>A queue made by {@link org.rpcrdma4j.verbs.VerbsDevice#createCompletionQueue} owns its channel and waits on it
 * ({@link #awaitNotification}); one made by a {@link DisniCompletionChannel} shares that
 * channel's ibv_comp_channel for its device, carries the channel's cookie as its cq_context, and
 * is waited for by the channel only.
 *
 * <p>Completions are read from the ibv_wc records the poll call filled (its own buffer): DiSNI
 * 2.1 copies vendor_err, byte_len and qp_num into its IbvWC objects for successful completions
 * only, but error completions need the queue pair number too. Reading the records allocates
 * nothing.
 *
 * <p>Threading: one thread polls, arms and waits (the contract); {@link #close()} may come from
 * another, so every native call runs under {@link #lock}, and waits are sliced so that a close
 * never destroys the channel under a waiting thread for longer than {@link #WAIT_SLICE_MILLIS}.
 */
final class DisniCompletionQueue implements CompletionQueue {
    /** Most completions one native poll takes; larger polls loop. */
    static final int BATCH = 32;
    /** Longest single wait in native code, so close() and interrupts are noticed. */
    static final int WAIT_SLICE_MILLIS = 50;

    // struct ibv_wc (48 bytes), as libdisni hands it to DiSNI (IbvWC.CSIZE)
    private static final int WC_WR_ID = 0;
    private static final int WC_STATUS = 8;
    private static final int WC_OPCODE = 12;
    private static final int WC_VENDOR_ERR = 16;
    private static final int WC_BYTE_LEN = 20;
    private static final int WC_INVALIDATED_RKEY = 24;
    private static final int WC_QP_NUM = 28;
    private static final int WC_FLAGS = 36;
    private static final int IBV_WC_WITH_INV = 1 << 3;

    private static final Field POLL_BUFFER = pollBufferField();

    private final DisniDevice device;
    private final IbvCompChannel channel;
    private final IbvCQ cq;
    private final int capacity;
    /** The shared channel this queue was created on, or null when the queue owns its channel. */
    private final DisniCompletionChannel owner;
    /** The cookie (cq_context) the owner maps this queue's events by; 0 without an owner. */
    private final int cookie;
    /** The owner's await round that last reported this queue (the owner's loop thread only). */
    long firedRound;
    private final ReentrantLock lock = new ReentrantLock();
    private final IbvWC[] wcs = new IbvWC[BATCH];
    private final SVCPollCq[] polls = new SVCPollCq[BATCH + 1];
    private final ByteBuffer[] records = new ByteBuffer[BATCH + 1];
    private SVCReqNotify arm;
    private int queuePairs;
    private volatile boolean closed;

    private DisniCompletionQueue(DisniDevice device, IbvCompChannel channel, IbvCQ cq, int capacity, DisniCompletionChannel owner,
            int cookie) {
        this.device = device;
        this.channel = channel;
        this.cq = cq;
        this.capacity = capacity;
        this.owner = owner;
        this.cookie = cookie;
        for (int i = 0; i < BATCH; i++) {
            wcs[i] = new IbvWC();
        }
    }

    /** Creates the channel, then the queue on it; destroys the channel if the queue fails. */
    static DisniCompletionQueue create(DisniDevice device, int capacity) throws VerbsException {
        IbvCompChannel channel;
        try {
            channel = device.context().createCompChannel();
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_create_comp_channel on " + device.name(), e);
        }
        try {
            IbvCQ cq = device.context().createCQ(channel, capacity, 0);
            return new DisniCompletionQueue(device, channel, cq, capacity, null, 0);
        } catch (IOException e) {
            try {
                channel.destroyCompChannel();
            } catch (IOException ignored) {
                // the queue's failure is the error to report
            }
            throw DisniErrors.toVerbs("ibv_create_cq of " + capacity + " entries on " + device.name(), e);
        }
    }

    /**
     * Creates a queue on a completion channel another object owns (a {@link DisniCompletionChannel}'s
     * ibv_comp_channel for the device), with its cookie as cq_context. Destroys the queue if the
     * cookie cannot be set.
     */
    static DisniCompletionQueue createOn(DisniDevice device, IbvCompChannel channel, int capacity, DisniCompletionChannel owner, int cookie)
            throws VerbsException {
        IbvCQ cq;
        try {
            cq = device.context().createCQ(channel, capacity, 0);
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_create_cq of " + capacity + " entries on " + device.name(), e);
        }
        try {
            DisniExtensions.setCompletionQueueCookie(((NatObject) cq).getObjId(), cookie);
        } catch (IOException e) {
            try {
                cq.destroyCQ();
            } catch (IOException ignored) {
                // the cookie's failure is the error to report
            }
            throw DisniErrors.toVerbs("setting the cq_context of a completion queue", e);
        }
        return new DisniCompletionQueue(device, channel, cq, capacity, owner, cookie);
    }

    IbvCQ cq() {
        return cq;
    }

    /** @return the cookie its channel maps its events by (0 when it owns its channel) */
    int cookie() {
        return cookie;
    }

    @Override
    public DisniDevice device() {
        return device;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] completions, int max) throws VerbsException {
        if (max < 0 || max > completions.length) {
            throw new IllegalArgumentException("max must be within 0.." + completions.length + ": " + max);
        }
        lock.lock();
        try {
            checkOpen();
            int done = 0;
            while (done < max) {
                int batch = Math.min(BATCH, max - done);
                int n = pollBatch(batch, completions, done);
                done += n;
                if (n < batch) {
                    break;
                }
            }
            return done;
        } finally {
            lock.unlock();
        }
    }

    private int pollBatch(int batch, WorkCompletion[] completions, int offset) throws VerbsException {
        SVCPollCq call = polls[batch];
        try {
            if (call == null) {
                call = cq.poll(wcs, batch);
                polls[batch] = call;
                records[batch] = recordsOf(call);
            }
            int n = call.execute().getPolls();
            ByteBuffer wc = records[batch];
            for (int i = 0; i < n; i++) {
                fill(completions[offset + i], wc, i * IbvWC.CSIZE);
            }
            return n;
        } catch (IOException e) {
            if (DisniErrors.errnoOf(e) >= 0) {
                throw DisniErrors.toVerbs("ibv_poll_cq", e); // refused by libdisni (e.g. a destroyed queue)
            }
            // DiSNI's "Polling CQ failed": ibv_poll_cq failed, which it does once the queue is in error (overflow)
            throw new VerbsException("ibv_poll_cq: the completion queue is in error (overflow): " + e.getMessage(), Errno.EOVERFLOW, e);
        }
    }

    /** Fills a completion from the struct ibv_wc at base (native byte order). */
    static void fill(WorkCompletion completion, ByteBuffer wc, int base) {
        CompletionStatus status = CompletionStatus.fromCode(wc.getInt(base + WC_STATUS));
        completion.set(wc.getLong(base + WC_WR_ID), status, opcodeOf(wc.getInt(base + WC_OPCODE)), wc.getInt(base + WC_BYTE_LEN),
                wc.getInt(base + WC_QP_NUM));
        if (status == CompletionStatus.SUCCESS) {
            if ((wc.getInt(base + WC_FLAGS) & IBV_WC_WITH_INV) != 0) {
                completion.invalidated(wc.getInt(base + WC_INVALIDATED_RKEY));
            }
        } else {
            completion.vendorError(wc.getInt(base + WC_VENDOR_ERR));
        }
    }

    /** enum ibv_wc_opcode → the contract's opcode (undefined on errors: SEND then). */
    static CompletionOpcode opcodeOf(int opcode) {
        switch (opcode) {
            case 1:
                return CompletionOpcode.RDMA_WRITE;
            case 2:
                return CompletionOpcode.RDMA_READ;
            case 6:
                return CompletionOpcode.LOCAL_INV;
            case 128:
            case 129:
                return CompletionOpcode.RECV;
            default:
                return CompletionOpcode.SEND;
        }
    }

    @Override
    public void requestNotification() throws VerbsException {
        lock.lock();
        try {
            checkOpen();
            if (arm == null) {
                arm = cq.reqNotification(false);
            }
            arm.execute();
        } catch (IOException e) {
            throw DisniErrors.toVerbs("ibv_req_notify_cq", e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean awaitNotification(long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        checkOpen();
        if (owner != null) {
            throw new VerbsException("this completion queue is waited for through its CompletionChannel's await", Errno.EINVAL);
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = deadline - System.nanoTime();
            int slice = (int) Math.max(0, Math.min(WAIT_SLICE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left)));
            lock.lock();
            try {
                if (closed) {
                    return false; // closed while waiting: the waiter returns (contract of close)
                }
                if (channel.getCqEvent(cq, slice)) {
                    cq.ackEvents(1);
                    return true;
                }
            } catch (IOException e) {
                throw DisniErrors.toVerbs("ibv_get_cq_event", e);
            } finally {
                lock.unlock();
            }
            if (left <= 0) {
                return false;
            }
        }
    }

    /** Counts a queue pair using this queue. */
    void attach() throws VerbsException {
        lock.lock();
        try {
            checkOpen();
            queuePairs++;
        } finally {
            lock.unlock();
        }
    }

    /** Uncounts a queue pair using this queue. */
    void detach() {
        lock.lock();
        try {
            queuePairs--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Destroys the queue, and its channel when it owns one; a queue of a {@link DisniCompletionChannel}
     * then leaves that channel (even when the destroy failed: the queue is closed either way).
     */
    @Override
    public void close() throws VerbsException {
        boolean closing = false;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (queuePairs > 0) {
                throw new VerbsException("completion queue still used by " + queuePairs + " queue pairs", Errno.EBUSY);
            }
            closed = true;
            closing = true;
            for (int i = 0; i < polls.length; i++) {
                if (polls[i] != null) {
                    polls[i].free();
                    polls[i] = null;
                    records[i] = null;
                }
            }
            if (arm != null) {
                arm.free();
                arm = null;
            }
            int cqRet = cq.destroyCQ();
            int channelRet = owner == null ? channel.destroyCompChannel() : 0;
            if (cqRet != 0 || channelRet != 0) {
                throw new VerbsException("ibv_destroy_cq / ibv_destroy_comp_channel", cqRet != 0 ? -cqRet : -channelRet);
            }
        } catch (IOException e) {
            // ours above (EBUSY, the destroy's errno) keep their errno through toVerbs
            throw DisniErrors.toVerbs("destroying the completion queue", e);
        } finally {
            lock.unlock();
            if (closing && owner != null) {
                owner.released(this);
            }
        }
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException("completion queue is closed", Errno.EBADF);
        }
    }

    /** The ibv_wc records a DiSNI poll call fills: its private command buffer, in native order. */
    private static ByteBuffer recordsOf(SVCPollCq call) throws VerbsException {
        try {
            MemBuf buffer = (MemBuf) POLL_BUFFER.get(call);
            return buffer.getBuffer().duplicate().order(ByteOrder.nativeOrder());
        } catch (IllegalAccessException e) {
            throw new VerbsException("reading DiSNI's poll records: " + e, DisniErrors.EIO, e);
        }
    }

    private static Field pollBufferField() {
        try {
            Field f = NatPollCqCall.class.getDeclaredField("cmd");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("not DiSNI 2.1: NatPollCqCall.cmd is missing", e);
        }
    }
}
