package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.internal.connection.SendLocks;

/**
 * CallBatchesOnLoopTest - while the loop's standby watches, the thread that received a client's batch of
 * calls keeps all of it and runs the calls one after another (no worker is woken for them), as
 * long as such calls are short for the time slice (longer ones go to the workers); a kept call
 * that blocks past its time slice does not hold the calls kept behind it: the standby that takes
 * the loop over sends them to the workers, and every call runs exactly once.
 */
class CallBatchesOnLoopTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int BATCH = 8;
    private static final int BATCHES = 50;
    private static final int WATCH_WARM_UP_CALLS = 60;
    private static final int ATTEMPTS = 30;
    /** How long a batch has to arrive while the loop's passes over its connection wait. */
    private static final long BATCH_ARRIVAL_MILLIS = 20;

    private OneLoopServer server;

    private void start(int sliceMicros) throws Exception {
        server = new OneLoopServer(TransportConfig.builder().callTimeSliceMicros(sliceMicros),
                ClientConfig.builder().progressThread(true).maxCredits(2 * BATCH).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private CompletableFuture<RpcReply> send(int xid, int procedure) {
        return server.call(xid, procedure, new byte[0]);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the COUNT result of a reply: how often the program had run COUNT then */
    private static int countResult(RpcReply reply) {
        byte[] whole = RpcWire.whole(reply, false);
        assertEquals(0, RpcWire.acceptStatus(whole), "SUCCESS");
        return ByteBuffer.wrap(whole, RpcWire.resultsOffset(whole), 4).getInt();
    }

    /**
     * keptOfBatches() - after calls enough for the standby to watch, sends {@code batches}
     * batches of {@value #BATCH} calls of one procedure, each batch at once, and checks every
     * answer.
     *
     * @return how many of those calls the loop's threads ran (the rest ran on workers)
     */
    private long keptOfBatches(int batches, int procedure, byte[] argument) throws Exception {
        for (int i = 0; i < WATCH_WARM_UP_CALLS; i++) {
            server.echo(0x9000 + i);
        }
        long keptBefore = server.count(Counter.CALLS_RUN_ON_LOOP);
        int xid = 0x9100;
        List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            calls.clear();
            for (int i = 0; i < BATCH; i++) {
                calls.add(server.call(xid++, procedure, argument));
            }
            for (CompletableFuture<RpcReply> call : calls) {
                byte[] whole = RpcWire.whole(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false);
                assertEquals(0, RpcWire.acceptStatus(whole), "SUCCESS");
            }
        }
        return server.count(Counter.CALLS_RUN_ON_LOOP) - keptBefore;
    }

    @Test
    void aBatchOfCallsRunsOnTheThreadThatReceivedIt() throws Exception {
        // 100 ms slices: no call outruns its slice unless the host stalls for that long.
        start(100_000);
        long kept = keptOfBatches(BATCHES, BulkProgram.COUNT, new byte[0]);
        assertEquals(BATCHES * BATCH, server.program.counted.get(), "every call ran once");
        // One call kept per pass would keep one or two of each batch (the pass that catches the
        // first call, and the one after it); all of a batch are kept unless a pass meets a busy
        // standby, which a busy host may make happen now and then.
        assertTrue(kept >= BATCHES * BATCH / 2, kept + " of " + BATCHES * BATCH + " calls sent " + BATCH
                + " at a time were run by the loop's threads: " + server.describe());
    }

    @Test
    void callsTooLongForTheTimeSliceAreNotKeptInBatches() throws Exception {
        // 50 ms slices: a batch is kept while its calls average under 50 ms / 4 / 16 = 0.78 ms.
        start(50_000);
        int batches = 20;
        // SLOW(2 ms): more than LoopCrew.BATCH_SHARE_OF_SLICE lets a batch's calls take.
        long kept = keptOfBatches(batches, BulkProgram.SLOW, RpcWire.intArgument(2));
        // The first batch may be kept whole (the average is of the short warm-up calls); from then
        // on a pass keeps one call, and a pass right after it another, at most: the rest go to
        // the workers.
        assertTrue(kept <= BATCH + 2L * (batches - 1), kept + " of " + batches * BATCH
                + " calls of 2 ms sent " + BATCH + " at a time were run by the loop's threads: " + server.describe());
    }

    @Test
    void callsKeptBehindABlockedCallGoToTheWorkersWhenTheStandbyTakesOver() throws Exception {
        // 100 ms slices: batches are kept while their calls average under 1.5 ms, and the gated
        // call is taken over after 100 ms.
        start(100_000);
        for (int i = 0; i < WATCH_WARM_UP_CALLS; i++) {
            server.echo(0x9400 + i);
        }
        int counts = 0;
        boolean stranded = false;
        // The calls behind the gated one reach the loop in the pass that delivers it (and so are
        // kept behind it) when they all arrived while its passes were deferred; a host that
        // stalls the client's sends for longer than that may split a batch: try again then.
        for (int attempt = 0; attempt < ATTEMPTS && !stranded; attempt++) {
            // Short kept calls just before: the standby watches, and the moving average of kept
            // calls forgets the last attempt's gated one (each short call takes 1/8 off it).
            for (int i = 0; i < 40; i++) {
                server.echo(0x9440 + i);
            }
            long sentOn = server.count(Counter.KEPT_CALLS_SENT_TO_WORKERS);
            server.program.gate = new CountDownLatch(1);
            List<CompletableFuture<RpcReply>> batch = new ArrayList<>();
            int first = 0x9500 + attempt * 16;
            // The batch arrives while a "worker" holds the connection's send lock: the loop defers
            // its passes and then finds the whole batch in one pass, the gated call first.
            SendLocks.whileHeld(server.rdma.connections().get(0), () -> {
                batch.add(send(first, BulkProgram.GATED));
                for (int i = 1; i < BATCH; i++) {
                    batch.add(send(first + i, BulkProgram.COUNT));
                }
                sleepQuietly(BATCH_ARRIVAL_MILLIS);
            });
            CompletableFuture<RpcReply> gated = batch.get(0);
            List<CompletableFuture<RpcReply>> behind = batch.subList(1, BATCH);
            counts += behind.size();
            // With the gate closed, each call behind the gated one is answered: by a worker, or
            // by the loop's other thread, never held until the gate opens.
            for (CompletableFuture<RpcReply> call : behind) {
                countResult(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            }
            assertFalse(gated.isDone(), "the gated call is held");
            stranded = server.count(Counter.KEPT_CALLS_SENT_TO_WORKERS) > sentOn;
            server.program.gate.countDown();
            assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(gated.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false)));
        }
        assertTrue(stranded, "in " + ATTEMPTS + " batches no call was kept behind the gated one: " + server.describe());
        assertTrue(server.count(Counter.LOOP_TAKEOVERS) >= 1, "the standby took over: " + server.describe());
        assertEquals(counts, server.program.counted.get(), "every call ran exactly once");
        server.assertCrewAsleep(TIMEOUT);
    }
}
