package org.rpcrdma4j.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.client.ReplyShapesTest.cause;

import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.CompletionStatus;

/** The connection going away with calls outstanding and waiting: every call fails, nothing leaks. */
class DisconnectTest {
    private static final ClientConfig CONFIG = ClientConfig.builder().maxCredits(8).build();

    @Test
    void serverDisconnectFailsOutstandingAndWaitingCalls() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = withChunksOutstanding(h);
            h.peer.disconnect();
            h.settle();
            for (CompletableFuture<RpcReply> c : calls) {
                assertInstanceOf(ClientClosedException.class, cause(c));
            }
            assertFalse(h.client.isConnected());
            assertEquals(2, h.client.statistics().liveRegistrations(), "every call's memory deregistered; the slabs wait for close");
            CompletableFuture<RpcReply> late = h.client.call(CallRequest.builder(RpcMessages.call(99, new byte[4])).writeChunk(64).build());
            assertInstanceOf(ClientClosedException.class, cause(late));
            assertEquals(2, h.client.statistics().liveRegistrations(), "a call after the disconnect leaves nothing registered");
        }
    }

    @Test
    void closeFailsOutstandingCallsWithAClearException() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = withChunksOutstanding(h);
            h.client.close();
            for (CompletableFuture<RpcReply> c : calls) {
                Throwable e = cause(c);
                assertInstanceOf(ClientClosedException.class, e);
                assertEquals("client closed", e.getMessage());
            }
            assertEquals(0, h.client.statistics().liveRegistrations());
            assertEquals(0, h.client.doWork(), "a closed client does nothing");
        }
    }

    @Test
    void aLostLinkFailsTheCalls() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = withChunksOutstanding(h);
            h.fabric.faults().dropConnection(h.peer.connection());
            h.settle();
            for (CompletableFuture<RpcReply> c : calls) {
                assertInstanceOf(ClientClosedException.class, cause(c));
            }
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void aCallbackMayCloseTheClient() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = withChunksOutstanding(h);
            AtomicReference<Throwable> inCallback = new AtomicReference<>();
            calls.get(0).whenComplete((r, e) -> {
                try {
                    h.client.close();
                } catch (RuntimeException t) {
                    inCallback.set(t);
                }
            });
            ByteBuffer first = h.peer.takeMessages().get(0);
            h.reply(Replies.msg(first.getInt(0), 4, RpcMessages.reply(first.getInt(0), new byte[0])), 4);
            assertTrue(calls.get(0).isDone() && !calls.get(0).isCompletedExceptionally());
            assertEquals(null, inCallback.get());
            for (CompletableFuture<RpcReply> c : calls.subList(1, calls.size())) {
                assertInstanceOf(ClientClosedException.class, cause(c));
            }
            assertEquals(0, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void aFailedSendBreaksTheConnectionAndFailsEveryOtherCall() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            List<CompletableFuture<RpcReply>> calls = withChunksOutstanding(h);
            ByteBuffer first = h.peer.takeMessages().get(0);
            h.peer.send(Replies.msg(first.getInt(0), 4, RpcMessages.reply(first.getInt(0), new byte[0])), 4);
            h.fabric.faults().failWorkRequest(1, CompletionStatus.LOCAL_PROTECTION_ERROR);
            h.settle(); // the reply frees a credit; the SEND of the next waiting call fails
            assertEquals(first.getInt(0), calls.get(0).join().xid());
            for (CompletableFuture<RpcReply> c : calls.subList(1, calls.size())) {
                Throwable e = cause(c);
                assertInstanceOf(ClientClosedException.class, e);
                assertTrue(e.getMessage().contains("LOCAL_PROTECTION_ERROR") || e.getMessage().contains("flushed"), e.getMessage());
            }
            assertFalse(h.client.isConnected());
            assertEquals(2, h.client.statistics().liveRegistrations());
        }
    }

    @Test
    void awaitGivesUpAfterItsTimeoutAndTheCallStaysOutstanding() throws Exception {
        try (Harness h = Harness.connected(CONFIG)) {
            CompletableFuture<RpcReply> f = h.call(CallRequest.builder(RpcMessages.call(3, new byte[4])).build());
            assertThrows(InterruptedIOException.class, () -> h.client.await(f, Duration.ofMillis(20)));
            assertEquals(1, h.client.outstandingCalls());
            h.takeOne();
            h.reply(Replies.msg(3, 1, RpcMessages.reply(3, new byte[0])), 1);
            assertEquals(3, f.join().xid());
        }
    }

    /** Grants 4, then leaves 4 calls with write chunks outstanding and 2 waiting. */
    private static List<CompletableFuture<RpcReply>> withChunksOutstanding(Harness h) throws Exception {
        h.client.call(CallRequest.builder(RpcMessages.call(100, new byte[4])).build());
        h.settle();
        h.reply(Replies.msg(100, 4, RpcMessages.reply(100, new byte[0])), 4);
        h.peer.takeMessages();
        List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            calls.add(h.client.call(CallRequest.builder(RpcMessages.call(i, RpcMessages.pattern(64, i))).readChunk(44, 64).writeChunk(256)
                    .build()));
        }
        h.settle();
        assertEquals(4, h.client.outstandingCalls());
        assertEquals(2, h.client.waitingCalls());
        assertEquals(2 + 12, h.client.statistics().liveRegistrations(), "two regions per call, waiting calls included");
        return calls;
    }
}
