package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.NextCallSpin;

/**
 * NextCallSpinTest - {@code nextCallSpinMicros} on the transport's own loop threads (as in
 * Karaf): a client calling one at a time has its next call taken while the loop's other thread
 * polls for it; a client that pauses longer than the spin makes the loop stop spinning after a
 * few misses (then it only probes); 0 turns it off; and the spin always ends in a sleep.
 */
class NextCallSpinTest {
    private static final int CALLS = 200;
    /** A warm loop takes CALLS / 4 next calls within a few hundred; a cold JVM on a busy host needs more. */
    private static final int MAX_CALLS = 50_000;
    /** Longer than the longest spin (1 ms): every spin for this client's next call finds nothing. */
    private static final long PAUSE_MILLIS = 4;
    private static final Duration ASLEEP_WITHIN = Duration.ofSeconds(10);

    private OneLoopServer server;

    private void start(int nextCallSpinMicros) throws Exception {
        server = new OneLoopServer(TransportConfig.builder().nextCallSpinMicros(nextCallSpinMicros),
                ClientConfig.builder().progressThread(false).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aLoneCallersNextCallIsTakenWhileTheLoopSpins() throws Exception {
        start(1000);
        // Warm, the client sends its next call within tens of microseconds of a reply, far
        // inside 1 ms. Until the JIT has compiled client and server (and while its compiler
        // threads hold a CPU of two) calls can be further apart: the loop stops spinning and
        // probes. So call until the spin has taken CALLS / 4 calls, within a generous bound;
        // without the spin there are no hits at all.
        int calls = 0;
        while (server.count(Counter.NEXT_CALL_SPIN_HITS) < CALLS / 4 && calls < MAX_CALLS) {
            server.echo(0x6000 + calls++);
        }
        assertTrue(server.count(Counter.NEXT_CALL_SPIN_HITS) >= CALLS / 4, calls + " calls: " + server.describe());
        assertEquals(0, server.count(Counter.LOOP_SPIN_HITS), "the other spin (completionSpinMicros) is off");
        server.assertCrewAsleep(ASLEEP_WITHIN); // once the client stops, the spinning ends
    }

    @Test
    void aClientThatPausesLongerThanTheSpinMakesTheLoopStopSpinning() throws Exception {
        start(1000);
        for (int i = 0; i < CALLS / 4; i++) {
            server.echo(0x6100 + i);
            Thread.sleep(PAUSE_MILLIS);
        }
        assertTrue(server.count(Counter.CALLS_RUN_ON_LOOP) > CALLS / 8, "the calls met a caught-up loop: " + server.describe());
        // Full confidence lasts NextCallSpin.SCORE_MAX / 2 misses; then one lone call in
        // NextCallSpin.PROBE_INTERVAL spins. Without the adaptation every call would spin (and miss).
        // A busy host may start a spin after the pause has passed, and it hits: each hit is one
        // spin more and lets half a miss more through.
        long hits = server.count(Counter.NEXT_CALL_SPIN_HITS);
        long spins = hits + server.count(Counter.NEXT_CALL_SPIN_MISSES);
        long bound = NextCallSpin.SCORE_MAX / 2 + CALLS / 4 / NextCallSpin.PROBE_INTERVAL + 2
                + 2 * hits;
        assertTrue(spins <= bound, "spins " + spins + " > " + bound + ": " + server.describe());
        assertTrue(server.count(Counter.NEXT_CALL_SPIN_MISSES) >= NextCallSpin.SCORE_MAX / 2, server.describe());
        server.assertCrewAsleep(ASLEEP_WITHIN); // once the client stops, the spinning ends
    }

    @Test
    void zeroNeverSpins() throws Exception {
        start(0);
        for (int i = 0; i < CALLS / 2; i++) {
            server.echo(0x6200 + i);
        }
        assertEquals(0, server.count(Counter.NEXT_CALL_SPIN_HITS) + server.count(Counter.NEXT_CALL_SPIN_MISSES),
                server.describe());
        assertTrue(server.count(Counter.CALLS_RUN_ON_LOOP) > 0, "the loop still runs lone calls: " + server.describe());
        server.assertCrewAsleep(ASLEEP_WITHIN); // once the client stops, the spinning ends
    }
}
