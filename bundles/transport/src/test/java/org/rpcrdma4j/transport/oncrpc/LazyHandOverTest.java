package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.CompletionLoop;
import org.rpcrdma4j.transport.internal.LoopCrew;

/**
 * LazyHandOverTest - {@code callTimeSliceMicros}: while calls are kept, the loop's standby
 * watches with timed waits, so the thread that kept a call steps aside and runs it without waking
 * the standby, then takes the loop back; a kept call that blocks past its time slice is taken over
 * (the loop serves its other calls meanwhile); calls kept less than twice per slice do not make it
 * watch; and once calls stop, the standby stops watching.
 */
class LazyHandOverTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int CALLS = 200;
    private static final int MAX_CALLS = 50_000;
    private static final int ATTEMPTS = 20;
    private static final int WATCH_WARM_UP_CALLS = 60;

    private OneLoopServer server;

    private void start(int sliceMicros) throws Exception {
        server = new OneLoopServer(TransportConfig.builder().callTimeSliceMicros(sliceMicros),
                ClientConfig.builder().progressThread(true).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aKeptCallRunsWithoutWakingAWatchingStandby() throws Exception {
        // 100 ms slices: the standby watches for 2 s after a kept call, and no call outruns its
        // slice unless the host stalls for that long.
        start(100_000);
        int calls = 0;
        while (server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER) < CALLS / 4 && calls < MAX_CALLS) {
            server.echo(0x8000 + calls++);
        }
        assertTrue(server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER) >= CALLS / 4, calls + " calls: " + server.describe());
        assertTrue(server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER) <= server.count(Counter.CALLS_RUN_ON_LOOP),
                server.describe());
    }

    @Test
    void aKeptCallThatBlocksIsTakenOverAfterItsTimeSliceAndTheLoopServesOn() throws Exception {
        // 50 ms slices: the standby watches for 1 s after a kept call, and takes a blocked call's
        // loop over 50 ms after it began. Calls must be kept often enough that the standby watches
        // (LoopCrew.runOnLoopIntervalNanos: the moving average of the time between kept calls
        // must fall under half a slice, here 25 ms). With 5 ms slices that bound was 2.5 ms, and a
        // busy CI host whose echo round trips took longer never got a watching standby.
        start(50_000);
        for (int i = 0; i < WATCH_WARM_UP_CALLS; i++) {
            server.echo(0x8100 + i);
        }
        CompletableFuture<RpcReply> gated = null;
        // Whether a call meets a watching standby is the scheduler's to say (a busy host may run
        // the standby late, or deliver the call to a worker): try until one does.
        for (int attempt = 0; attempt < ATTEMPTS && gated == null; attempt++) {
            server.echo(0x8140 + attempt); // one more call kept just before
            long aside = server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER);
            long delivered = server.count(Counter.CALLS_DELIVERED);
            server.program.gate = new CountDownLatch(1);
            CompletableFuture<RpcReply> call = server.call(0x8180 + attempt, BulkProgram.GATED, new byte[0]);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (server.count(Counter.CALLS_DELIVERED) == delivered && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            // The loop counts the step-aside when its pass ends, just after the delivery.
            long settled = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER) == aside && System.nanoTime() - settled < 0) {
                Thread.sleep(1);
            }
            if (server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER) == aside + 1) {
                gated = call;
            } else {
                server.program.gate.countDown(); // run elsewhere: let it finish, and try again
                assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false)));
            }
        }
        assertTrue(gated != null, "no gated call in " + ATTEMPTS + " was run by the thread that kept it, the standby not woken: "
                + server.describe());

        // It blocks in the program past its slice: the standby takes the loop over and serves.
        for (int i = 0; i < 100; i++) {
            server.echo(0x8200 + i);
        }
        assertFalse(gated.isDone(), "the gated call is still held");
        assertTrue(server.count(Counter.LOOP_TAKEOVERS) >= 1, "the standby took over: " + server.describe());

        server.program.gate.countDown();
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(gated.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false)));
        // The freed thread found the loop led by the other and stood by: calls are kept again.
        long kept = server.count(Counter.CALLS_RUN_ON_LOOP);
        for (int i = 0; i < 20; i++) {
            server.echo(0x8300 + i);
        }
        assertTrue(server.count(Counter.CALLS_RUN_ON_LOOP) > kept, "calls are kept again: " + server.describe());
        server.assertCrewAsleep(TIMEOUT);
    }

    @Test
    void aCallerSlowerThanTwoCallsPerSliceDoesNotMakeTheStandbyWatch() throws Exception {
        start(1000);
        for (int i = 0; i < 30; i++) {
            server.echo(0x8500 + i);
            Thread.sleep(3); // calls kept 3 ms apart: a watch every 1 ms slice would cost more than it saves
        }
        assertTrue(server.count(Counter.CALLS_RUN_ON_LOOP) > 0, "the calls were kept: " + server.describe());
        assertEquals(0, server.count(Counter.CALLS_RUN_WITHOUT_HAND_OVER), "the standby watched: " + server.describe());
    }

    @Test
    void onceCallsStopTheStandbyStopsWatching() throws Exception {
        start(1000);
        for (int i = 0; i < CALLS; i++) {
            server.echo(0x8400 + i);
        }
        assertTrue(server.count(Counter.CALLS_RUN_ON_LOOP) > 0, server.describe());
        // After LoopCrew.WATCH_QUIET_SLICES quiet slices (20 ms) the standby waits untimed, as the leader on
        // the channel does: an idle loop's crew costs no CPU.
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!standbyWaitsUntimed() && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        assertTrue(standbyWaitsUntimed(), "the standby still watches " + LoopCrew.WATCH_QUIET_SLICES
                + " slices after the last call: " + server.describe());
        server.assertCrewAsleep(TIMEOUT);
    }

    private boolean standbyWaitsUntimed() {
        return CrewThreads.threads(server.port(), 0).stream()
                .anyMatch(t -> t.getState() == Thread.State.WAITING && CrewThreads.standingBy(t));
    }
}
