package org.rpcrdma4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.QueuePair;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Waiting helpers that work for deterministic and asynchronous providers alike: they drive the
 * fixture's progress and poll until what is expected arrives, failing (not timing) after a
 * generous bound.
 */
public final class Harness {
    /** How long an expected completion or event may take before the test fails. */
    public static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** How long an asynchronous provider is given before asserting that nothing arrived. */
    public static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final ConformanceFixture fixture;

    /** @param fixture the provider fixture to drive */
    public Harness(ConformanceFixture fixture) {
        this.fixture = fixture;
    }

    /** Lets the provider settle: deterministic providers run until idle; others get a short quiet period. */
    public void settle() {
        int work = 0;
        for (int i = 0; i < 1_000_000 && fixture.progress() > 0; i++) {
            work++;
        }
        if (work == 0) {
            sleepNanos(QUIET_NANOS);
        }
    }

    /**
     * Asks the queue pair's state until it is {@code expected} (within {@link #BOUND_NANOS}): a
     * state the device reaches by itself, e.g. after the peer tore the connection down.
     */
    public void awaitState(QueuePair queuePair, QueuePairState expected) throws VerbsException {
        long deadline = System.nanoTime() + BOUND_NANOS;
        QueuePairState state;
        while ((state = queuePair.state()) != expected) {
            if (System.nanoTime() - deadline > 0) {
                fail("queue pair state " + state + ", expected " + expected);
            }
            if (fixture.progress() == 0) {
                sleepNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    /**
     * Polls until exactly {@code n} completions arrived.
     *
     * @return fresh copies of the completions, in poll order
     */
    public WorkCompletion[] awaitCompletions(CompletionQueue queue, int n) throws VerbsException {
        WorkCompletion[] out = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            out[i] = new WorkCompletion();
        }
        int got = 0;
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (got < n) {
            WorkCompletion[] window = Arrays.copyOfRange(out, got, n);
            got += queue.poll(window, window.length);
            if (got < n && fixture.progress() == 0) {
                if (System.nanoTime() - deadline > 0) {
                    fail("expected " + n + " completions, got " + got);
                }
                Thread.onSpinWait();
            }
        }
        return out;
    }

    /**
     * Waits for an event of the type on each manager, polling them in turn: no manager waits for
     * another's event to be taken first. Needed where one side's event follows from the other's
     * being handled: the IB CM's active side sees DISCONNECTED only once the passive side has
     * answered the DREQ, which a provider does while its manager takes the event.
     *
     * @return the events found, in the order of {@code events}
     */
    public SeenEvent[] awaitOnEach(ConnectionEventType type, Events... events) throws VerbsException {
        SeenEvent[] found = new SeenEvent[events.length];
        long deadline = System.nanoTime() + BOUND_NANOS;
        int missing = events.length;
        while (missing > 0) {
            for (int i = 0; i < events.length; i++) {
                if (found[i] == null && (found[i] = events[i].poll(type)) != null) {
                    missing--;
                }
            }
            if (missing > 0 && fixture.progress() == 0) {
                if (System.nanoTime() - deadline > 0) {
                    fail("no " + type + " event on manager(s) " + missingIndices(found));
                }
                sleepNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return found;
    }

    private static String missingIndices(SeenEvent[] found) {
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < found.length; i++) {
            if (found[i] == null) {
                names.append(names.length() == 0 ? "" : ", ").append(i);
            }
        }
        return names.toString();
    }

    /**
     * Polls until no completion has arrived for {@link #QUIET_NANOS} (at most {@link #BOUND_NANOS}).
     *
     * @return fresh copies of the completions that arrived, in poll order
     */
    public List<WorkCompletion> drainUntilQuiet(CompletionQueue queue) throws VerbsException {
        List<WorkCompletion> out = new ArrayList<>();
        long start = System.nanoTime();
        long lastSeen = start;
        while (true) {
            WorkCompletion[] one = {new WorkCompletion()};
            if (queue.poll(one, 1) == 1) {
                out.add(one[0]);
                lastSeen = System.nanoTime();
            } else if (fixture.progress() == 0) {
                long now = System.nanoTime();
                if (now - lastSeen > QUIET_NANOS || now - start > BOUND_NANOS) {
                    return out;
                }
                sleepNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }

    /** Asserts that no completion arrives once the provider has settled. */
    public void assertNoCompletion(CompletionQueue queue) throws VerbsException {
        settle();
        WorkCompletion[] one = {new WorkCompletion()};
        if (queue.poll(one, 1) != 0) {
            fail("unexpected completion " + one[0]);
        }
    }

    /** Collects a manager's events into a queue and finds them by type. */
    public static final class Events {
        private final ConnectionManager manager;
        private final ArrayDeque<SeenEvent> seen = new ArrayDeque<>();

        /** @param manager the manager whose events to collect */
        public Events(ConnectionManager manager) {
            this.manager = manager;
        }

        /** @return the first not yet taken event of the type, waiting for it */
        public SeenEvent await(ConnectionEventType type) throws VerbsException, InterruptedException {
            long deadline = System.nanoTime() + BOUND_NANOS;
            while (true) {
                SeenEvent found = take(type);
                if (found != null) {
                    return found;
                }
                if (System.nanoTime() - deadline > 0) {
                    fail("no " + type + " event; seen " + seen);
                }
                manager.awaitEvents(event -> seen.add(SeenEvent.copyOf(event)), 16, 50, TimeUnit.MILLISECONDS);
            }
        }

        /** @return the first not yet taken event of the type, if it arrived already */
        public SeenEvent poll(ConnectionEventType type) throws VerbsException {
            manager.pollEvents(event -> seen.add(SeenEvent.copyOf(event)), 16);
            return take(type);
        }

        private SeenEvent take(ConnectionEventType type) {
            for (Iterator<SeenEvent> it = seen.iterator(); it.hasNext();) {
                SeenEvent event = it.next();
                if (event.type() == type) {
                    it.remove();
                    return event;
                }
            }
            return null;
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
