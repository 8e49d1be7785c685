package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.client.InlineCallTest.array;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * The client as benchmarks and the shell use it: a threaded fabric, the client's own progress
 * thread, the blocking connect and blocking calls from several threads at once, against a peer
 * serving on its own thread. Timeouts only bound a hang; nothing asserts on time.
 */
class ThreadedClientTest {
    private static final int GRANT = 8;
    private static final int CALLERS = 4;
    private static final int CALLS_EACH = 50;

    @Test
    void concurrentBlockingCallsWithAProgressThread() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(CALLERS + 1);
        try (LoopbackFabric fabric = LoopbackFabric.threaded(); ScriptedPeer peer = new ScriptedPeer(fabric, 4096, 32)) {
            AtomicBoolean stop = new AtomicBoolean();
            Future<?> serving = threads.submit(() -> serve(peer, stop));
            ClientConfig config = ClientConfig.builder().maxCredits(GRANT).progressThread(true).build();
            RpcRdmaClient client = RpcRdmaClient.connect(fabric.provider(), peer.address(), config);
            try {
                assertThrows(IllegalStateException.class, client::doWork, "the progress thread owns the completion queue");
                List<Future<?>> callers = new ArrayList<>();
                for (int t = 0; t < CALLERS; t++) {
                    int thread = t;
                    callers.add(threads.submit(() -> {
                        for (int i = 0; i < CALLS_EACH; i++) {
                            int xid = thread * 1000 + i;
                            CallRequest.Builder b = CallRequest.builder(RpcMessages.call(xid, RpcMessages.pattern(64, xid)));
                            if (i % 3 == 0) {
                                b.readChunk(RpcMessages.callDataOffset(), 64);
                            }
                            RpcReply reply = client.call(b.build(), Duration.ofSeconds(30));
                            assertEquals(xid, reply.xid());
                            assertArrayEquals(array(RpcMessages.reply(xid, RpcMessages.pattern(16, xid))), array(reply.body()));
                        }
                        return null;
                    }));
                }
                for (Future<?> caller : callers) {
                    caller.get(60, TimeUnit.SECONDS);
                }
                stop.set(true);
                serving.get(60, TimeUnit.SECONDS);
                ClientStatistics stats = client.statistics();
                assertEquals(CALLERS * CALLS_EACH, stats.repliesReceived());
                assertTrue(stats.maxOutstanding() <= GRANT, "outstanding " + stats.maxOutstanding());
                assertTrue(peer.maxUnanswered() <= GRANT, "the peer held " + peer.maxUnanswered());
                assertEquals(2, stats.liveRegistrations());
            } finally {
                stop.set(true);
                client.close();
            }
            assertEquals(0, client.statistics().liveRegistrations());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void closeRacingWithCallersLeavesEveryCallAnsweredOrFailedAndNothingRegistered() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(CALLERS + 1);
        try (LoopbackFabric fabric = LoopbackFabric.threaded(); ScriptedPeer peer = new ScriptedPeer(fabric, 4096, 32)) {
            AtomicBoolean stop = new AtomicBoolean();
            threads.submit(() -> serveUntilGone(peer, stop));
            ClientConfig config = ClientConfig.builder().maxCredits(GRANT).progressThread(true).build();
            RpcRdmaClient client = RpcRdmaClient.connect(fabric.provider(), peer.address(), config);
            List<CompletableFuture<RpcReply>> futures = new CopyOnWriteArrayList<>();
            CountDownLatch running = new CountDownLatch(CALLERS);
            List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < CALLERS; t++) {
                int thread = t;
                callers.add(threads.submit(() -> {
                    running.countDown();
                    for (int i = 0; i < 500; i++) {
                        int xid = thread * 100_000 + i;
                        futures.add(client.call(CallRequest.builder(RpcMessages.call(xid, RpcMessages.pattern(32, xid))).readChunk(44, 32)
                                .writeChunk(128).build()));
                    }
                }));
            }
            running.await();
            client.close();
            stop.set(true);
            for (Future<?> caller : callers) {
                caller.get(60, TimeUnit.SECONDS);
            }
            for (CompletableFuture<RpcReply> f : futures) {
                RpcReply reply = f.handle((r, e) -> {
                    if (e != null) {
                        Throwable c = e instanceof CompletionException ? e.getCause() : e;
                        assertTrue(c instanceof ClientClosedException || c instanceof IllegalStateException, c.toString());
                    }
                    return r;
                }).get(60, TimeUnit.SECONDS);
                assertTrue(reply == null || reply.body().remaining() > 0);
            }
            assertEquals(0, client.statistics().liveRegistrations(), "every registration of every call was released");
        } finally {
            threads.shutdownNow();
        }
    }

    /** Answers calls like {@link #serve} until the connection goes away. */
    private static Void serveUntilGone(ScriptedPeer peer, AtomicBoolean stop) throws Exception {
        try {
            serve(peer, stop);
        } catch (AssertionError | org.rpcrdma4j.verbs.VerbsException e) {
            // the client closed under the peer's feet: expected in this test
        }
        return null;
    }

    /** Accepts, then answers every call with a reply of its own xid and a grant of {@link #GRANT}. */
    private static Void serve(ScriptedPeer peer, AtomicBoolean stop) throws Exception {
        peer.accept(Harness.serverPrivateData(4096, 4096, false));
        while (!stop.get()) {
            ByteBuffer call = peer.takeMessage();
            if (call == null) {
                LockSupport.parkNanos(50_000);
                continue;
            }
            int xid = call.getInt(0);
            peer.send(Replies.msg(xid, GRANT, RpcMessages.reply(xid, RpcMessages.pattern(16, xid))), GRANT);
        }
        return null;
    }
}
