package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * LoopRunsCallsTest - leader/followers ({@code loopRunsCalls}): the completion-loop thread that
 * received a call runs it while the loop's standby takes over, and a call that blocks there never
 * stops the loop from serving: the other thread leads, and calls go to the workers until a
 * standby is free again.
 */
class LoopRunsCallsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final AtomicInteger xids = new AtomicInteger(0x7000);
    private OneLoopServer server;

    private void start(boolean loopRunsCalls) throws Exception {
        server = new OneLoopServer(TransportConfig.builder().loopRunsCalls(loopRunsCalls),
                ClientConfig.builder().progressThread(true).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private ByteBuffer call(int procedure, byte[] arguments) {
        return RpcWire.call(xids.incrementAndGet(), BulkProgram.PROGRAM, BulkProgram.VERSION, procedure, arguments);
    }

    /** One ECHO, its reply checked byte for byte. */
    private void echo(int i) throws Exception {
        byte[] text = new byte[40 + i % 50];
        Arrays.fill(text, (byte) i);
        RpcReply reply;
        try {
            reply = server.client.call(CallRequest.builder(call(BulkProgram.ECHO, RpcWire.opaqueArgument(text))).build(), TIMEOUT);
        } catch (java.io.IOException e) {
            throw new AssertionError("call " + i + " unanswered; the loop's crew: " + CrewThreads.describe(port(), 0)
                    + "; counters " + server.rdma.statistics(), e);
        }
        byte[] whole = RpcWire.whole(reply, false);
        assertEquals(0, RpcWire.acceptStatus(whole), "SUCCESS");
        int at = RpcWire.resultsOffset(whole);
        assertArrayEquals(text, Arrays.copyOfRange(whole, at + 4, at + 4 + text.length), "call " + i + " echoed");
    }

    private long count(Counter c) {
        return server.rdma.statistics().get(c);
    }

    private int port() {
        return server.rdma.localAddress().getPort();
    }

    @Test
    void aCallArrivingAtAnIdleLoopRunsOnTheThreadThatReceivedIt() throws Exception {
        start(true);
        assertEquals(2, CrewThreads.threads(port(), 0).size(), "a crew of two: " + CrewThreads.describe(port(), 0));
        for (int i = 0; i < 20; i++) {
            // Idle between calls: one thread sleeps on the channel, the other stands by, so the
            // call is kept by the thread that receives it.
            assertTrue(CrewThreads.awaitAsleep(port(), 0, TIMEOUT), "the loop never slept: " + CrewThreads.describe(port(), 0));
            long before = count(Counter.CALLS_RUN_ON_LOOP);
            echo(i);
            assertEquals(before + 1, count(Counter.CALLS_RUN_ON_LOOP), "call " + i + " ran on the loop's thread");
        }
    }

    @Test
    void withTheSettingOffEveryCallGoesToAWorkerAndTheLoopIsOneThread() throws Exception {
        start(false);
        List<Thread> crew = CrewThreads.threads(port(), 0);
        assertEquals(1, crew.size(), "one loop thread: " + CrewThreads.describe(port(), 0));
        assertEquals("rpcrdma4j-rdma-" + port() + "-loop-0", crew.get(0).getName());
        for (int i = 0; i < 50; i++) {
            echo(i);
        }
        assertEquals(50, count(Counter.CALLS_DELIVERED));
        assertEquals(0, count(Counter.CALLS_RUN_ON_LOOP), "no call ran on the loop");
    }

    @Test
    void aCallBlockedOnTheLoopsThreadDoesNotStopTheLoop() throws Exception {
        start(true);
        echo(-1); // the client starts with one credit (RFC 8166 section 3.3.1); a reply grants it the rest
        long before = count(Counter.CALLS_RUN_ON_LOOP);
        server.program.gate = new CountDownLatch(1);
        assertTrue(CrewThreads.awaitAsleep(port(), 0, TIMEOUT), "the loop never slept: " + CrewThreads.describe(port(), 0));
        CompletableFuture<RpcReply> gated = server.client.call(CallRequest.builder(call(BulkProgram.GATED, new byte[0])).build());
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (count(Counter.CALLS_RUN_ON_LOOP) == before && System.nanoTime() - deadline < 0) {
            Thread.sleep(2);
        }
        assertEquals(before + 1, count(Counter.CALLS_RUN_ON_LOOP), "the gated call was kept by the thread that received it");

        // That thread waits in the program; the other leads, with no standby: calls go to workers.
        for (int i = 0; i < 100; i++) {
            echo(i);
        }
        assertFalse(gated.isDone(), "the gated call is still held");
        assertEquals(before + 1, count(Counter.CALLS_RUN_ON_LOOP), "no standby while the call blocks: workers served the rest");
        assertTrue(CrewThreads.threads(port(), 0).stream().anyMatch(t -> CrewThreads.parkedIn(t, "BulkProgram", "dispatchOncRpcCall")),
                "a crew thread runs the gated call: " + CrewThreads.describe(port(), 0));

        server.program.gate.countDown();
        assertEquals(0, RpcWire.acceptStatus(RpcWire.whole(gated.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false)));
        // Back on stand-by: the next call arriving at an idle loop runs on the loop again.
        assertTrue(CrewThreads.awaitAsleep(port(), 0, TIMEOUT), "the loop never slept: " + CrewThreads.describe(port(), 0));
        echo(1000);
        assertEquals(before + 2, count(Counter.CALLS_RUN_ON_LOOP), "the freed thread stood by again");
        assertEquals(103, count(Counter.CALLS_DELIVERED));
    }

    @Test
    void manyCallsInFlightAreAllAnsweredWhateverThreadRunsThem() throws Exception {
        start(true);
        int calls = 2000;
        CompletableFuture<?>[] replies = new CompletableFuture<?>[calls];
        byte[][] texts = new byte[calls][];
        for (int i = 0; i < calls; i++) {
            texts[i] = new byte[1 + i % 200];
            Arrays.fill(texts[i], (byte) (i * 7));
            replies[i] = server.client.call(CallRequest.builder(call(BulkProgram.ECHO, RpcWire.opaqueArgument(texts[i]))).build());
        }
        for (int i = 0; i < calls; i++) {
            byte[] whole = RpcWire.whole((RpcReply) replies[i].get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), false);
            assertEquals(0, RpcWire.acceptStatus(whole), "SUCCESS");
            int at = RpcWire.resultsOffset(whole);
            assertArrayEquals(texts[i], Arrays.copyOfRange(whole, at + 4, at + 4 + texts[i].length), "call " + i);
        }
        assertEquals(calls, count(Counter.CALLS_DELIVERED));
        assertTrue(count(Counter.CALLS_RUN_ON_LOOP) <= calls, "counted once per call at most");
    }
}
