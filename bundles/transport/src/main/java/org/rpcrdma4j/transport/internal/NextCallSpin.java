package org.rpcrdma4j.transport.internal;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.internal.common.Counters;

/**
 * NextCallSpin - the adaptive spin of a loop's leader for a client's next call (with
 * {@code loopRunsCalls} and nextCallSpinMicros): after a pass whose calls were all kept, the
 * next leader polls a little before it sleeps, as long as such spins keep finding the call.
 *
 * <p>Threading: the loop's leader only.
 */
public final class NextCallSpin {
    /**
     * The next-call spin's confidence at its highest. A hit adds one, a miss takes two: the loop
     * keeps spinning while at least about two spins in three find the call, and stops after
     * {@value} / 2 misses in a row.
     */
    public static final int SCORE_MAX = 16;
    /**
     * With no confidence left, one pass in this many (a power of two) whose calls were all kept
     * still spins, to find out whether the client sped up.
     */
    public static final int PROBE_INTERVAL = 16;
    private final CompletionLoop loop;
    /** The loop's own counts, written by its leader. */
    private final Counters loopCounters;
    private final long nextCallSpinNanos;
    /**
     * Confidence in the next-call spin, 0..{@value #SCORE_MAX}: up by one
     * per hit, down by two per miss.
     */
    private int nextCallScore = SCORE_MAX;
    /** Passes with all calls kept seen while the confidence is 0, for the occasional probing spin. */
    private int nextCallProbes;

    NextCallSpin(CompletionLoop loop, Counters loopCounters, long nextCallSpinNanos) {
        this.loop = loop;
        this.loopCounters = loopCounters;
        this.nextCallSpinNanos = nextCallSpinNanos;
    }

    /** @return false when nextCallSpinMicros is 0: never spin */
    boolean enabled() {
        return nextCallSpinNanos > 0;
    }

    /**
     * spin() - the next leader after a pass whose calls were all kept: their client
     * waits for those replies and sends its next call right after, typically within tens of
     * microseconds, while a sleeping loop would take a wake-up (an interrupt and a thread switch,
     * tens of microseconds between CPUs) to see it. So poll for up to nextCallSpinMicros for a
     * call. Adaptive, as a spinning lock is: every spin that finds a call raises the confidence
     * by one, every one that does not lowers it by two, and at 0 only one such pass in
     * {@value #PROBE_INTERVAL} spins (to notice when the client speeds up
     * again). The all-kept rule keeps the spin off the CPUs under load, when calls go to the
     * workers, which need the cores.
     *
     * @return true when a call came within the spin
     */
    boolean spin() {
        if (nextCallScore == 0 && (++nextCallProbes & (PROBE_INTERVAL - 1)) != 0) {
            return false;
        }
        long deadline = loop.now() + nextCallSpinNanos;
        do {
            // Yield, not just spin: the client this loop waits for may be runnable on this very
            // CPU (two CPUs, three threads), and a plain spin would keep it off until the spin ends.
            Thread.yield();
            loop.doWork();
            if (loop.callsOffered() > 0) {
                nextCallScore = Math.min(SCORE_MAX, nextCallScore + 1);
                loopCounters.incrementOwned(Counter.NEXT_CALL_SPIN_HITS);
                return true;
            }
        } while (!loop.isClosed() && loop.now() - deadline < 0);
        nextCallScore = Math.max(0, nextCallScore - 2);
        loopCounters.incrementOwned(Counter.NEXT_CALL_SPIN_MISSES);
        return false;
    }
}
