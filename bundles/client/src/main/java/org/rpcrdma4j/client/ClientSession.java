package org.rpcrdma4j.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * The sending half of an established connection: the call table under one lock, the send slab
 * cut into one slot per call, and the posting of SENDs in arrival order as credits and slots
 * allow.
 *
 * <p>Threading: every method is safe from any thread; table state and posting are serialised by
 * one lock, which is never held while a future completes or memory is deregistered (methods
 * return the calls that finished, and the caller completes them with {@link #finish} outside the
 * lock). Ownership: the session does not own the queue pair or the slab (the client's
 * {@link VerbsResources} do); it owns the calls in its table.
 */
final class ClientSession {
    /** Work request ids of sends carry this tag above the slot index. */
    static final long SEND_TAG = 2L << 32;
    /** Work request ids of the (unsignaled) REG_MRs before a SEND carry this tag. */
    static final long REGISTRATION_TAG = 3L << 32;

    private final ReentrantLock lock = new ReentrantLock();
    private final CallTable table;
    private final CallEncoder encoder = new CallEncoder();
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final SendWorkRequest[] registrations = new SendWorkRequest[PreparedCall.MAX_FAST_REGISTRATIONS];
    private final QueuePair queuePair;
    private final MemoryRegion sendSlab;
    private final int slotSize;
    private final int requestedCredits;
    private final ConnectionParameters server;
    private final ClientCounters counters;
    private final Registrar registrar;
    private ClientClosedException closed;

    ClientSession(QueuePair queuePair, MemoryRegion sendSlab, int slotSize, ClientConfig config, ConnectionParameters server,
            ClientCounters counters, Registrar registrar) {
        this.queuePair = queuePair;
        this.sendSlab = sendSlab;
        this.slotSize = slotSize;
        this.requestedCredits = config.maxCredits();
        this.server = server;
        this.counters = counters;
        this.registrar = registrar;
        this.table = new CallTable(config.maxCredits(), new CreditWindow(config.maxCredits(), config.enforceCredits()));
        for (int i = 0; i < registrations.length; i++) {
            registrations[i] = new SendWorkRequest(1);
        }
        counters.creditLimit.set(table.credits().granted());
    }

    /** @return the server's connection parameters */
    ConnectionParameters server() {
        return server;
    }

    /** @return the largest message a call may send */
    int sendLimit() {
        return slotSize;
    }

    /**
     * Queues a prepared call and posts what may go out.
     *
     * @param call the call, handed over to the session
     * @param finished receives the calls that finished meanwhile (to {@link #finish})
     */
    void submit(PreparedCall call, List<Finished> finished) {
        lock.lock();
        try {
            if (closed != null) {
                finished.add(new Finished(call, null, closed));
                return;
            }
            if (call.request().expectsReply() && table.isAwaited(call.xid())) {
                finished.add(new Finished(call, null, new IllegalStateException("xid 0x" + Integer.toHexString(call.xid())
                        + " is already outstanding")));
                return;
            }
            table.enqueue(call);
            postReadyLocked(finished);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Posts waiting calls after the receives this round's replies took were posted again (only
     * then are their credits free: RFC 8166 section 3.3.1, a receive per credit before a call).
     *
     * @param finished receives the calls that failed to post
     */
    void postReadyAfterRepost(List<Finished> finished) {
        lock.lock();
        try {
            table.receivesReposted();
            postReadyLocked(finished);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Matches a reply to its call and takes the reply's credit grant.
     *
     * @param xid the reply's xid
     * @param grant the reply's credit field
     * @return the call, now the caller's; null when no call awaits the xid
     */
    PreparedCall answer(int xid, int grant) {
        lock.lock();
        try {
            PreparedCall call = table.answer(xid, grant);
            counters.creditLimit.set(table.credits().granted());
            return call;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records a SEND completion.
     *
     * @param slot the slot index from the work request id
     * @return a call that expected no reply and is now done (the caller's), else null
     */
    PreparedCall sendCompleted(int slot) {
        lock.lock();
        try {
            return table.sendCompleted(slot);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the session: every call not answered fails with {@code cause}, and so does every later
     * submission. Only the first cause counts.
     *
     * @param cause why the connection is gone
     * @param finished receives the drained calls
     */
    void fail(ClientClosedException cause, List<Finished> finished) {
        lock.lock();
        try {
            if (closed == null) {
                closed = cause;
            }
            for (PreparedCall call : table.drain()) {
                finished.add(new Finished(call, null, closed));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Posts a SEND that is not a call (a backward reply, RFC 8167) while the session lasts.
     *
     * @param send the prepared, signaled SEND
     * @return false when the session has ended (nothing posted)
     * @throws VerbsException when the post fails
     */
    boolean postRaw(SendWorkRequest send) throws VerbsException {
        lock.lock();
        try {
            if (closed != null) {
                return false;
            }
            queuePair.postSend(send);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** @return whether the session has ended */
    boolean isClosed() {
        lock.lock();
        try {
            return closed != null;
        } finally {
            lock.unlock();
        }
    }

    /** @return calls posted and not yet answered */
    int outstanding() {
        lock.lock();
        try {
            return table.outstanding();
        } finally {
            lock.unlock();
        }
    }

    /** @return calls waiting for a credit or a slot */
    int waiting() {
        lock.lock();
        try {
            return table.waiting();
        } finally {
            lock.unlock();
        }
    }

    /** @return the credit grant in force */
    int creditLimit() {
        lock.lock();
        try {
            return table.credits().granted();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes finished calls: deregisters their memory first, then completes their futures.
     * MUST be called without the session's lock. Allocates nothing.
     *
     * @param finished the calls; each is taken out of the list before its future completes, so
     *        a callback that adds to it (by closing the client) does not disturb the iteration
     */
    static void finish(List<Finished> finished) {
        complete(release(finished));
    }

    /**
     * Deregisters the memory of finished calls, the first half of {@link #finish}, in place.
     *
     * @param finished the calls
     * @return {@code finished}, each call's deregistration failure folded into its outcome
     */
    static List<Finished> release(List<Finished> finished) {
        for (int i = 0; i < finished.size(); i++) {
            Finished f = finished.get(i);
            VerbsException failed = f.call().release();
            if (failed == null) {
                continue;
            }
            if (f.error() != null) {
                f.error().addSuppressed(failed);
            } else {
                finished.set(i, new Finished(f.call(), null, failed));
            }
        }
        return finished;
    }

    /**
     * Completes the futures of released calls, the second half of {@link #finish}, first to last,
     * taking each out of the list before its future completes. Dependent actions run here, so
     * no lock of the client may be held.
     *
     * @param released calls from {@link #release}; emptied
     */
    static void complete(List<Finished> released) {
        while (!released.isEmpty()) {
            Finished f = released.remove(0);
            if (f.error() != null) {
                f.call().future().completeExceptionally(f.error());
            } else {
                f.call().future().complete(f.reply());
            }
        }
    }

    private void postReadyLocked(List<Finished> finished) {
        CallTable.Slot slot;
        while (closed == null && (slot = table.nextToPost()) != null) {
            try {
                post(slot);
            } catch (VerbsException | RuntimeException e) {
                finished.add(new Finished(table.postFailed(slot), null, e));
                if (e instanceof VerbsException) {
                    fail(new ClientClosedException("posting a call failed", e), finished);
                }
            }
        }
        counters.maxOutstanding.accumulateAndGet(table.credits().highWater(), Math::max);
    }

    private void post(CallTable.Slot slot) throws VerbsException {
        PreparedCall call = slot.call;
        int offset = slot.index * slotSize;
        int length = encoder.encode(call, requestedCredits, sendSlab.buffer(), offset, slotSize);
        HeaderMutator mutator = call.request().mutator();
        if (mutator != null) {
            ByteBuffer message = sendSlab.buffer().slice(offset, slotSize).limit(length);
            mutator.mutate(message, CallEncoder.layoutOf(call));
            length = message.limit();
        }
        send.reset(SendOpcode.SEND, SEND_TAG | slot.index, SendWorkRequest.SIGNALED).addSge(sendSlab, offset, length).next(null);
        queuePair.postSend(chainRegistrations(call, slot.index));
        counters.callsSent.incrementAndGet();
        if (call.proc() == RpcRdma.RDMA_MSG) {
            counters.inlineCalls.incrementAndGet();
        } else if (call.proc() == RpcRdma.RDMA_NOMSG) {
            counters.nomsgCalls.incrementAndGet();
        }
        counters.readChunks.addAndGet(call.readChunks().size());
    }

    /**
     * Chains the REG_MRs a call's fast-registered chunks need before its SEND (same queue, so they
     * execute first; unsignaled, so the SEND's completion retires them).
     */
    private SendWorkRequest chainRegistrations(PreparedCall call, int slot) {
        SendWorkRequest head = send;
        List<ChunkMemory> memory = call.memory();
        for (int i = memory.size() - 1; i >= 0; i--) {
            SendWorkRequest wr = registrations[i];
            if (memory.get(i).fillRegistration(wr, REGISTRATION_TAG | slot)) {
                head = wr.next(head);
            }
        }
        return head;
    }

    /**
     * A call that left the session, with its outcome: a reply (null for calls that expected
     * none) or an error.
     *
     * @param call the call, owned by whoever holds this record
     * @param reply the reply, or null
     * @param error the failure, or null
     */
    record Finished(PreparedCall call, RpcReply reply, Throwable error) {
    }
}
