package org.rpcrdma4j.transport.internal.common;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * Counters - the counters of a transport, or of one of its writers (a connection, a completion
 * loop), whose counts also show in the transport's.
 *
 * <p>Two ways to count, as Aeron's counters and Linux's per-CPU counters do for the hot path:
 * <ul>
 * <li>{@link #addOwned}: by the one writer this set belongs to at that moment, named by the
 * {@code writer} check given at {@link #newWriter} (for a connection, whoever holds its send lock;
 * for a loop, its leader). A plain read and an ordered write of its own slot: no atomic
 * instruction, no full fence, and no cache line shared with another connection or loop. The
 * transport does not see these counts at once: it sums its writers' slots when read, and a writer
 * that goes ({@link #retire}) leaves its counts to the transport. Assertions check the writer.</li>
 * <li>{@link #increment}/{@link #add}: by any thread, atomic, and written through to the
 * transport's counters at once. For counts off the hot path: errors, drops, lifecycle.</li>
 * </ul>
 *
 * <p>Threading: reads from any thread. A transport's reads and retirements take its monitor, so a
 * retiring writer's counts are never seen twice or missed; a read sums every live writer's
 * slots, so it costs O(connections).
 */
public final class Counters implements TransportStatistics {
    private static final Counter[] COUNTERS = Counter.values();
    /** Ordered (release) writes and opaque reads of {@link #owned}'s slots. */
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** The writer's counts: written only by the writer (ordered), read by anyone (opaque). */
    private final long[] owned = new long[COUNTERS.length];
    /** Counts from any thread (atomic), already written through to {@link #transport}. */
    private final AtomicLongArray shared = new AtomicLongArray(COUNTERS.length);
    private final ConcurrentHashMap<String, AtomicLong> readsByStrategy = new ConcurrentHashMap<>();
    /** The transport's counters for a writer's set; null for the transport's own. */
    private final Counters transport;
    /** Whether the calling thread is this set's writer now (assertions only). */
    private final BooleanSupplier writer;
    /** The transport's live writers, whose {@link #owned} counts its reads sum (under this monitor). */
    private final List<Counters> writers;
    /** The owned counts of the writers that went (under this monitor). */
    private final long[] retired;
    /**
     * Set by {@link #retire} (by the writer): the transport no longer sums this set, so a later
     * owned count is written through as a shared one. Read and written by the writer only.
     */
    private boolean retiredFromTransport;

    private Counters(Counters transport, BooleanSupplier writer) {
        this.transport = transport;
        this.writer = writer;
        this.writers = transport == null ? new ArrayList<>() : null;
        this.retired = transport == null ? new long[COUNTERS.length] : null;
    }

    /** @return a transport's counters, written only through {@link #increment}/{@link #add} and its writers */
    public static Counters forTransport() {
        return new Counters(null, () -> true);
    }

    /**
     * newWriter() - the counters of one writer of this transport (a connection, a loop), counted
     * in this transport's until {@link #retire}d.
     *
     * @param writer true when the calling thread may {@link #addOwned} now (checked by assertions)
     * @return the writer's counters
     */
    public Counters newWriter(BooleanSupplier writer) {
        if (transport != null) {
            throw new IllegalStateException("a writer's counters cannot have writers of their own");
        }
        Counters counters = new Counters(this, writer);
        synchronized (this) {
            writers.add(counters);
        }
        return counters;
    }

    /**
     * incrementOwned() - add one, as this set's writer.
     *
     * @param counter which
     */
    public void incrementOwned(Counter counter) {
        addOwned(counter, 1);
    }

    /**
     * addOwned() - add a value, as this set's writer (see the class comment): a plain read and an
     * ordered write.
     *
     * @param counter which
     * @param delta how much
     */
    public void addOwned(Counter counter, long delta) {
        assert writer.getAsBoolean() : "a count of " + counter + " off this counter set's writer";
        if (transport == null || retiredFromTransport) {
            add(counter, delta);
            return;
        }
        int slot = counter.ordinal();
        SLOT.setRelease(owned, slot, owned[slot] + delta);
    }

    /**
     * increment() - add one, from any thread.
     *
     * @param counter which
     */
    public void increment(Counter counter) {
        add(counter, 1);
    }

    /**
     * add() - add a value, from any thread: atomic, and at once in the transport's counters too.
     *
     * @param counter which
     * @param delta how much
     */
    public void add(Counter counter, long delta) {
        shared.getAndAdd(counter.ordinal(), delta);
        if (transport != null) {
            transport.add(counter, delta);
        }
    }

    /**
     * readStarted() - count one READ under its strategy's name (and in {@link Counter#READS}),
     * from any thread.
     *
     * @param strategy the strategy's name
     */
    public void readStarted(String strategy) {
        AtomicLong n = readsByStrategy.get(strategy);
        if (n == null) {
            n = readsByStrategy.computeIfAbsent(strategy, s -> new AtomicLong());
        }
        n.incrementAndGet();
        shared.getAndIncrement(Counter.READS.ordinal());
        if (transport != null) {
            transport.readStarted(strategy);
        }
    }

    /**
     * retire() - this writer goes (its connection is removed): the transport keeps its owned
     * counts and stops summing it; a later count goes straight to the transport. By the writer,
     * once it wrote its last owned count; a second call does nothing.
     */
    public void retire() {
        assert writer.getAsBoolean() : "counters retired off their writer";
        if (transport == null || retiredFromTransport) {
            return;
        }
        retiredFromTransport = true;
        transport.adoptRetired(this);
    }

    private synchronized void adoptRetired(Counters gone) {
        if (writers.remove(gone)) {
            for (int i = 0; i < retired.length; i++) {
                retired[i] += (long) SLOT.getOpaque(gone.owned, i);
            }
        }
    }

    @Override
    public long get(Counter counter) {
        int slot = counter.ordinal();
        long value = shared.get(slot);
        if (transport != null) {
            return value + (long) SLOT.getOpaque(owned, slot);
        }
        synchronized (this) {
            value += retired[slot];
            for (int i = 0; i < writers.size(); i++) {
                value += (long) SLOT.getOpaque(writers.get(i).owned, slot);
            }
        }
        return value;
    }

    @Override
    public Map<String, Long> readsByStrategy() {
        Map<String, Long> snapshot = new TreeMap<>();
        readsByStrategy.forEach((k, v) -> snapshot.put(k, v.get()));
        return snapshot;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Counter c : COUNTERS) {
            long v = get(c);
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(c).append('=').append(v);
            }
        }
        return sb.append(", readsByStrategy=").append(readsByStrategy()).append('}').toString();
    }
}
