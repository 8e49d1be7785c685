package org.rpcrdma4j.transport.internal.connection;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * Counters - the counters of a connection or a transport; a connection's counts also go to its
 * transport's.
 *
 * <p>Threading: written by the completion thread (and {@link Counter#DOUBLE_RELEASES} by any
 * thread), read by any thread. Bumping allocates nothing; the first READ of a strategy adds its
 * entry once.
 */
public final class Counters implements TransportStatistics {
    private static final Counter[] COUNTERS = Counter.values();

    private final AtomicLongArray values = new AtomicLongArray(COUNTERS.length);
    private final ConcurrentHashMap<String, AtomicLong> readsByStrategy = new ConcurrentHashMap<>();
    private final Counters parent;

    /**
     * Creates counters.
     *
     * @param parent the transport's counters that also receive every count, or null
     */
    public Counters(Counters parent) {
        this.parent = parent;
    }

    /**
     * increment() - add one.
     *
     * @param counter which
     */
    public void increment(Counter counter) {
        add(counter, 1);
    }

    /**
     * add() - add a value.
     *
     * @param counter which
     * @param delta how much
     */
    public void add(Counter counter, long delta) {
        values.getAndAdd(counter.ordinal(), delta);
        if (parent != null) {
            parent.add(counter, delta);
        }
    }

    /**
     * readStarted() - count one READ under its strategy's name (and in {@link Counter#READS}).
     *
     * @param strategy the strategy's name
     */
    public void readStarted(String strategy) {
        AtomicLong n = readsByStrategy.get(strategy);
        if (n == null) {
            n = readsByStrategy.computeIfAbsent(strategy, s -> new AtomicLong());
        }
        n.incrementAndGet();
        values.getAndIncrement(Counter.READS.ordinal());
        if (parent != null) {
            parent.readStarted(strategy);
        }
    }

    @Override
    public long get(Counter counter) {
        return values.get(counter.ordinal());
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
