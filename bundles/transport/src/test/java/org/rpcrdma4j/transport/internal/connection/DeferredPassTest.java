package org.rpcrdma4j.transport.internal.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
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
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * DeferredPassTest - a worker holding one connection's send lock (stuck in a post, as on rxe where
 * a post does the device's work) does not stall its completion loop: the loop serves its other
 * connections meanwhile, and the worker wakes it when it lets go, so the held connection's call is
 * answered at once (not at the loop's next timed wake-up, 10 s away on a quiet loop).
 */
class DeferredPassTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final AtomicInteger xids = new AtomicInteger(0x4000);
    private LoopbackFabric fabric;
    private RdmaTransport transport;
    private RpcRdmaClient first;
    private RpcRdmaClient second;

    /** Answers every call on the loop thread: accepted, SUCCESS, no results. */
    private final RpcCallHandler handler = call -> {
        PendingReply reply = call.detachReply();
        ByteBuffer message = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        RpcMessage.putAcceptedReplyHeader(message, call.xid(), RpcMessage.SUCCESS).flip();
        try {
            reply.send(message, -1);
        } finally {
            call.release();
        }
    };

    @AfterEach
    void stop() throws Exception {
        for (RpcRdmaClient c : new RpcRdmaClient[] {first, second}) {
            if (c != null) {
                c.close();
            }
        }
        if (transport != null) {
            transport.close();
            assertTrue(transport.awaitClosed(30, TimeUnit.SECONDS), "the loop ended");
        }
        if (fabric != null) {
            fabric.close();
        }
    }

    private CompletableFuture<RpcReply> call(RpcRdmaClient client) {
        int xid = xids.incrementAndGet();
        ByteBuffer message = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES);
        RpcMessage.putCallHeader(message, xid, 0x2000_0400, 1, 0).flip(); // NULL
        return client.call(CallRequest.builder(message).build());
    }

    private static void assertAnswered(CompletableFuture<RpcReply> reply, Duration within) throws Exception {
        RpcReply r = reply.get(within.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES, RpcMessage.resultsOffset(r.body()), "accepted, SUCCESS");
    }

    @Test
    void aWorkerHoldingOneConnectionsSendLockStallsNeitherTheLoopNorThatConnection() throws Exception {
        fabric = LoopbackFabric.threaded();
        transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                TransportConfig.builder().completionLoops(1).loopRunsCalls(false).build(), handler);
        transport.start(r -> {
            Thread t = new Thread(r, "deferred-pass-test");
            t.setDaemon(true);
            return t;
        });
        first = RpcRdmaClient.connect(fabric.provider(), transport.localAddress(), ClientConfig.builder().progressThread(true).build());
        assertAnswered(call(first), TIMEOUT);
        List<RdmaConnection> connections = transport.connections();
        assertEquals(1, connections.size());
        // The loop serves its connections in the order they came: this one before the second.
        ConnectionState held = (ConnectionState) connections.get(0);
        second = RpcRdmaClient.connect(fabric.provider(), transport.localAddress(), ClientConfig.builder().progressThread(true).build());
        assertAnswered(call(second), TIMEOUT);
        assertEquals(2, transport.connections().size());

        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        Thread worker = new Thread(() -> held.underSendLock(() -> {
            holding.countDown();
            try {
                letGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }), "stuck-worker");
        worker.start();
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        CompletableFuture<RpcReply> waiting = call(first);
        for (int i = 0; i < 20; i++) {
            assertAnswered(call(second), TIMEOUT); // with a loop waiting for the lock: never
        }
        assertFalse(waiting.isDone(), "the held connection's call waits for the lock");
        assertTrue(transport.statistics().get(Counter.LOOP_PASSES_DEFERRED) > 0, "passes deferred");

        letGo.countDown();
        worker.join(10_000);
        // Well within the quiet loop's 10 s: the worker's let-go woke the loop.
        assertAnswered(waiting, Duration.ofSeconds(5));
    }
}
