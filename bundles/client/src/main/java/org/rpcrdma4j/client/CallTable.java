package org.rpcrdma4j.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls of one connection: a fixed set of send slots (each owning one send buffer of the
 * send slab), the calls waiting for a slot or a credit, and the xid lookup of replies.
 *
 * <p>A slot is busy from the post of its call until both the SEND completed (its buffer is free
 * again) and the call was answered; the credit is returned once the reply's receive is posted again.
 *
 * <p>Not thread-safe: every method MUST be called with the client's lock held. Ownership: a
 * {@link PreparedCall} belongs to the table from {@link #enqueue} until a method returns it
 * (answered, sent without reply, or drained), and to the caller afterwards.
 */
final class CallTable {
    /** One send slot. */
    static final class Slot {
        final int index;
        PreparedCall call;
        boolean sendDone;
        boolean answered;

        Slot(int index) {
            this.index = index;
        }

        boolean isFree() {
            return call == null;
        }
    }

    private final Slot[] slots;
    private final ArrayDeque<PreparedCall> pending = new ArrayDeque<>();
    private final CreditWindow credits;

    CallTable(int slotCount, CreditWindow credits) {
        this.slots = new Slot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new Slot(i);
        }
        this.credits = credits;
    }

    /** @return the credit window */
    CreditWindow credits() {
        return credits;
    }

    /**
     * @param xid an xid
     * @return whether a call awaiting a reply with this xid is outstanding or waiting
     */
    boolean isAwaited(int xid) {
        for (Slot slot : slots) {
            if (slot.call != null && !slot.answered && slot.call.request().expectsReply() && slot.call.xid() == xid) {
                return true;
            }
        }
        for (PreparedCall call : pending) {
            if (call.request().expectsReply() && call.xid() == xid) {
                return true;
            }
        }
        return false;
    }

    /** @param call a call to post once a slot and a credit are free, in arrival order */
    void enqueue(PreparedCall call) {
        pending.addLast(call);
    }

    /**
     * Takes the next waiting call if a slot and a credit are free: the call is then outstanding
     * in the returned slot and MUST be posted.
     *
     * @return the slot, or null when nothing can go out
     */
    Slot nextToPost() {
        if (pending.isEmpty() || !credits.mayPost()) {
            return null;
        }
        for (Slot slot : slots) {
            if (slot.isFree()) {
                slot.call = pending.removeFirst();
                slot.sendDone = false;
                slot.answered = false;
                credits.onPost();
                return slot;
            }
        }
        return null;
    }

    /**
     * Finds the outstanding call a reply answers and marks it answered, returning its credit.
     *
     * @param xid the reply's xid
     * @param grant the reply's credit grant
     * @return the call, now the caller's; null when no call awaits this xid
     */
    PreparedCall answer(int xid, int grant) {
        for (Slot slot : slots) {
            if (slot.call != null && !slot.answered && slot.call.request().expectsReply() && slot.call.xid() == xid) {
                PreparedCall call = slot.call;
                slot.answered = true;
                credits.onAnswered();
                credits.onGrant(grant);
                freeIfDone(slot);
                return call;
            }
        }
        return null;
    }

    /**
     * Records a completed SEND.
     *
     * @param index the slot index
     * @return the call when it expected no reply (now answered and the caller's), else null
     */
    PreparedCall sendCompleted(int index) {
        Slot slot = slots[index];
        if (slot.call == null) {
            return null;
        }
        slot.sendDone = true;
        PreparedCall finished = null;
        if (!slot.answered && !slot.call.request().expectsReply()) {
            slot.answered = true;
            credits.onRetire();
            finished = slot.call;
        }
        freeIfDone(slot);
        return finished;
    }

    /**
     * Gives up a slot whose post failed: the call was never sent.
     *
     * @param slot the slot from {@link #nextToPost()}
     * @return the call, now the caller's
     */
    PreparedCall postFailed(Slot slot) {
        PreparedCall call = slot.call;
        slot.call = null;
        credits.onRetire();
        return call;
    }

    /**
     * Takes every call not yet answered, outstanding or waiting: the connection is gone.
     *
     * @return the calls, now the caller's
     */
    List<PreparedCall> drain() {
        List<PreparedCall> calls = new ArrayList<>(pending);
        pending.clear();
        for (Slot slot : slots) {
            if (slot.call != null && !slot.answered) {
                calls.add(slot.call);
                slot.answered = true;
                credits.onRetire();
            }
            slot.call = null;
        }
        return calls;
    }

    /** receivesReposted() - the receives replies took are posted again: their credits are free. */
    void receivesReposted() {
        credits.onReceivesReposted();
    }

    /** @return calls outstanding (posted and not answered) */
    int outstanding() {
        return credits.outstanding();
    }

    /** @return calls waiting for a slot or a credit */
    int waiting() {
        return pending.size();
    }

    /**
     * @param index a slot index
     * @return the slot
     */
    Slot slot(int index) {
        return slots[index];
    }

    private static void freeIfDone(Slot slot) {
        if (slot.sendDone && slot.answered) {
            slot.call = null;
        }
    }
}
