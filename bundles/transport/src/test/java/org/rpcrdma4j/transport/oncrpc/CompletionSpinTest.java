package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.transport.spi.SinkPool;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.ProtectionDomain;

/**
 * CompletionSpinTest - completionSpinMicros on the transport's own loop thread (as in Karaf): a
 * client's back-to-back calls are taken while the loop keeps polling (counted as spin hits), and
 * the spin is bounded: once the calls stop, the loop sleeps on its completion channel, and with
 * nothing outstanding it stays asleep until an event wakes it.
 */
class CompletionSpinTest {
    private static final int CALLS = 200;
    private static final int MAX_CALLS = 50_000;
    /** The loop reaches its channel's wait, not polling for ever: its crew all parked within this. */
    private static final Duration ASLEEP_WITHIN = Duration.ofSeconds(10);

    private OneLoopServer server;

    private void start(int spinMicros) throws Exception {
        // The next-call spin off: it would take the calls this test counts.
        server = new OneLoopServer(TransportConfig.builder().completionSpinMicros(spinMicros).nextCallSpinMicros(0),
                ClientConfig.builder().progressThread(false).spinMicros(spinMicros).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void echoBackToBack() throws Exception {
        for (int i = 0; i < CALLS; i++) {
            server.echo(0x5000 + i);
        }
    }

    @Test
    void backToBackCallsAreTakenWhileTheLoopSpinsAndAnIdleLoopStillSleeps() throws Exception {
        start(1000);
        // Every call and its reply's send completion arrive within 1 ms of the loop's last work
        // unless the host preempts it (or the JIT's compiler threads hold a CPU of two): call
        // until the spin has taken CALLS / 10, within a generous bound. Without the spin there
        // are no hits at all.
        int calls = 0;
        while (server.count(Counter.LOOP_SPIN_HITS) < CALLS / 10 && calls < MAX_CALLS) {
            server.echo(0x5000 + calls++);
        }
        long hits = server.count(Counter.LOOP_SPIN_HITS);
        assertTrue(hits >= CALLS / 10, "spin hits " + hits + " of " + calls + " calls; sleeps "
                + server.count(Counter.LOOP_SLEEPS));
        server.assertCrewAsleep(ASLEEP_WITHIN);
    }

    @Test
    void withoutSpinTheLoopSleepsAsSoonAsItFindsNothing() throws Exception {
        start(0);
        echoBackToBack();
        assertEquals(0, server.count(Counter.LOOP_SPIN_HITS), "no spin, no hits");
        assertTrue(server.count(Counter.LOOP_SLEEPS) > 0, "the loop slept between calls");
        server.assertCrewAsleep(ASLEEP_WITHIN);
    }

    @Test
    void aQuietConnectionLetsTheLoopSleepUntilSomethingHappens() throws Exception {
        start(0);
        echoBackToBack();
        server.assertCrewAsleep(ASLEEP_WITHIN);
        long sleeps = server.count(Counter.LOOP_SLEEPS);
        // Nothing outstanding, no deadline running: each wake-up would count one more sleep (the
        // loop used to wake every second for its housekeeping; now it sleeps up to 10 s).
        Thread.sleep(2500);
        assertEquals(sleeps, server.count(Counter.LOOP_SLEEPS), "the quiet loop woke on its own");
        // A strategy change is an event: the loop wakes for it (to retire pools) and sleeps again.
        server.rdma.addStrategy(new RegistrationStrategy() {
            @Override
            public String name() {
                return "unused";
            }

            @Override
            public SinkPool createSinkPool(ProtectionDomain pd, SinkPoolParameters parameters) {
                throw new UnsupportedOperationException("inline calls need no READ sinks");
            }
        });
        // Within 5 s: less than the 10 s the quiet loop would sleep before waking on its own.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (server.count(Counter.LOOP_SLEEPS) == sleeps && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertTrue(server.count(Counter.LOOP_SLEEPS) > sleeps, "the strategy change did not wake the loop");
        echoBackToBack(); // and it still serves
    }
}
