package org.rpcrdma4j.transport.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * CallsRunOnLoop - the calls one crew thread kept from a pass ({@link CompletionLoop#runOnLoop}), which it
 * runs one after another once the pass ends. Each crew thread has its own. Every call is claimed
 * exactly once: by the thread that kept it, or by a standby that took the loop over from it
 * ({@link #moveUnclaimedTo}, under the crew lock, which also orders the kept calls written
 * before the leader stepped aside), never both.
 */
final class CallsRunOnLoop {
    final Runnable[] calls = new Runnable[LoopCrew.MAX_CALLS_RUN_ON_LOOP_PER_PASS];
    final Executor[] elsewhere = new Executor[LoopCrew.MAX_CALLS_RUN_ON_LOOP_PER_PASS];
    /** Calls kept; written by the owner while it leads, read by a standby under the crew lock. */
    int count;
    /** The next call not yet claimed. */
    final AtomicInteger next = new AtomicInteger();

    /** Owner, as it begins to lead: every call of the last batch was claimed. */
    void clear() {
        count = 0;
        next.set(0);
    }

    void add(Runnable call, Executor where) {
        calls[count] = call;
        elsewhere[count] = where;
        count++;
    }

    /** @return the next kept call, now this thread's to run; null when none is left */
    Runnable claim() {
        int i = next.getAndIncrement();
        if (i >= count) {
            return null;
        }
        Runnable call = calls[i];
        calls[i] = null;
        elsewhere[i] = null;
        return call;
    }

    /** @return the first of the calls (up to count) that are now the caller's: all not claimed before */
    int claimRest() {
        return next.getAndSet(count);
    }

    /** Under the crew lock: the calls not yet claimed become {@code to}'s (which has none). */
    void moveUnclaimedTo(CallsRunOnLoop to) {
        to.clear();
        for (int i = claimRest(); i < count; i++) {
            to.add(calls[i], elsewhere[i]);
            calls[i] = null;
            elsewhere[i] = null;
        }
    }
}
