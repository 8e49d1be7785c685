package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * RunOnReceivingThreadTest - {@link ReceivedCall#runOnReceivingThread} through the transport's own API: a
 * call offered from {@code onCall} at an idle loop runs on the loop thread that received it
 * (after its pass, the standby leading); offered from any other thread it is refused, and the
 * loop's state is not touched from there.
 */
class RunOnReceivingThreadTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final ExecutorService elsewhere = Executors.newSingleThreadExecutor(r -> new Thread(r, "elsewhere"));
    /** Per xid: whether the offer was taken, and the thread the reply was sent from. */
    private final Map<Integer, Boolean> taken = new ConcurrentHashMap<>();
    private final Map<Integer, String> repliedFrom = new ConcurrentHashMap<>();
    private LoopbackFabric fabric;
    private RdmaTransport transport;
    private RpcRdmaClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (transport != null) {
            transport.close();
            assertTrue(transport.awaitClosed(30, TimeUnit.SECONDS), "the loop's crew ended");
        }
        elsewhere.shutdownNow();
        if (fabric != null) {
            fabric.close();
        }
    }

    /** Even xids are offered from onCall, odd ones from the "elsewhere" thread. */
    private final RpcCallHandler handler = call -> {
        PendingReply reply = call.detachReply();
        Runnable answer = () -> answer(call, reply);
        if (call.xid() % 2 == 0) {
            boolean kept = call.runOnReceivingThread(answer, elsewhere);
            taken.put(call.xid(), kept);
            if (!kept) {
                elsewhere.execute(answer);
            }
        } else {
            elsewhere.execute(() -> {
                taken.put(call.xid(), call.runOnReceivingThread(answer, elsewhere));
                answer.run();
            });
        }
    };

    private void answer(ReceivedCall call, PendingReply reply) {
        repliedFrom.put(call.xid(), Thread.currentThread().getName());
        ByteBuffer message = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES);
        RpcMessage.putAcceptedReplyHeader(message, call.xid(), RpcMessage.SUCCESS).flip();
        try {
            reply.send(message, -1);
        } finally {
            call.release();
        }
    }

    private void start() throws Exception {
        fabric = LoopbackFabric.threaded();
        transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                TransportConfig.builder().completionLoops(1).build(), handler);
        String prefix = "rpcrdma4j-rdma-" + transport.localAddress().getPort() + "-";
        AtomicInteger made = new AtomicInteger();
        transport.start(r -> {
            int n = made.getAndIncrement();
            Thread t = new Thread(r, n < 2 ? prefix + "loop-0-" + n : prefix + "acceptor");
            t.setDaemon(true);
            return t;
        });
        client = RpcRdmaClient.connect(fabric.provider(), transport.localAddress(),
                ClientConfig.builder().progressThread(true).build());
    }

    private void call(int xid) throws Exception {
        byte[] reply = RpcWire.whole(client.call(CallRequest.builder(RpcWire.call(xid, 0x2000_0300, 1, 0, new byte[0])).build(),
                TIMEOUT), false);
        assertEquals(0, RpcWire.acceptStatus(reply), "xid " + xid + " answered");
    }

    @Test
    void offeredFromOnCallItRunsOnTheLoopOfferedFromElsewhereItIsRefused() throws Exception {
        start();
        int port = transport.localAddress().getPort();
        for (int xid = 100; xid < 120; xid++) {
            assertTrue(CrewThreads.awaitAsleep(port, 0, TIMEOUT), "the loop never slept: " + CrewThreads.describe(port, 0));
            call(xid);
            if (xid % 2 == 0) {
                assertEquals(Boolean.TRUE, taken.get(xid), "xid " + xid + ": offered from onCall at an idle loop");
                assertTrue(repliedFrom.get(xid).startsWith("rpcrdma4j-rdma-" + port + "-loop-0-"),
                        "xid " + xid + " ran on " + repliedFrom.get(xid));
            } else {
                assertFalse(taken.get(xid), "xid " + xid + ": offered off the loop");
                assertEquals("elsewhere", repliedFrom.get(xid));
            }
        }
        assertEquals(10, transport.statistics().get(Counter.CALLS_RUN_ON_LOOP));
    }
}
