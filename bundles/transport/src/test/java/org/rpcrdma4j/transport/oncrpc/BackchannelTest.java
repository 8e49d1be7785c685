package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.client.BackwardCallHandler;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.HeaderWriter;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.RpcRdma;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.MalformedRpcHeaderException;
import org.rpcrdma4j.server.RpcHeaderCheck;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * BackchannelTest - RFC 8167 over the loopback provider, end to end: an oncrpc4j program that,
 * while serving a call, calls the calling Java client back through {@code getPeerTransport()}
 * and answers with the callback's result; many callbacks at once with forward calls in flight
 * both ways; backward calls beyond the client's credits; timeouts; a reply to nothing; a callback
 * too large for the client's receives; connection loss with callbacks outstanding, and a fresh
 * back channel after reconnecting.
 */
class BackchannelTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private LoopbackFabric fabric;
    private HostServer host;
    private CallbackProgram program;
    private RdmaHostedTransport rdma;
    private final List<RpcRdmaClient> clients = new ArrayList<>();
    private final AtomicInteger xids = new AtomicInteger(0x5000);
    private String backchannelThreadName;

    @BeforeEach
    void start() throws Exception {
        start(TransportConfig.builder().credits(64).backchannelCredits(4).build());
    }

    private void start(TransportConfig config) throws Exception {
        fabric = LoopbackFabric.threaded();
        // More workers than callbacks at once: each CALLBACK holds its worker while it waits.
        host = new HostServer(64);
        program = new CallbackProgram();
        host.addProgram(new OncRpcProgram(CallbackProgram.PROGRAM, CallbackProgram.VERSION), program);
        host.addProgram(new OncRpcProgram(BulkProgram.PROGRAM, BulkProgram.VERSION), new BulkProgram());
        rdma = RdmaHostedTransport.builder(fabric.provider())
                .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).config(config).build();
        host.addTransport(rdma);
        backchannelThreadName = "rpcrdma4j-backchannel-" + rdma.localAddress().getPort();
    }

    @AfterEach
    void stop() {
        clients.forEach(RpcRdmaClient::close);
        host.close();
        assertTrue(rdma.isStopped(), "the completion thread ended");
        // stopped means ended: no thread of the transport's bundle is left running
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            assertFalse(t.getName().equals(backchannelThreadName) && t.isAlive(), "back-channel thread left running");
        }
        fabric.close();
    }

    private RpcRdmaClient client(BackwardCallHandler handler, int credits) throws Exception {
        ClientConfig config = ClientConfig.builder().progressThread(true).maxCredits(64).backchannel(handler, credits).build();
        RpcRdmaClient c = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(), config);
        clients.add(c);
        // A client may have one call out until the first reply grants more (RFC 8166 §3.3.1):
        // take the grant first, so calls held by callbacks leave credits for others.
        c.call(CallRequest.builder(RpcWire.call(xids.incrementAndGet(), BulkProgram.PROGRAM, BulkProgram.VERSION,
                BulkProgram.NULL, new byte[0])).build(), TIMEOUT);
        return c;
    }

    /** The client's callback program: CB_DOUBLE(n) answers 2n. */
    private static ByteBuffer doubling(ByteBuffer call) {
        return CallbackProgram.intReply(call, 2 * CallbackProgram.callbackArgument(call));
    }

    private ByteBuffer callbackCall(int n, int timeoutMs, int padding) {
        byte[] args = ByteBuffer.allocate(12).putInt(n).putInt(timeoutMs).putInt(padding).array();
        return RpcWire.call(xids.incrementAndGet(), CallbackProgram.PROGRAM, CallbackProgram.VERSION, CallbackProgram.CALLBACK,
                args);
    }

    /** @return {status, value} of a CALLBACK reply */
    private static int[] outcome(RpcReply reply) {
        ByteBuffer body = reply.body();
        byte[] bytes = new byte[body.remaining()];
        body.duplicate().get(bytes);
        assertEquals(0, RpcWire.acceptStatus(bytes), "the forward call succeeded");
        int at = RpcWire.resultsOffset(bytes);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new int[] {b.getInt(at), b.getInt(at + 4)};
    }

    private CompletableFuture<RpcReply> callback(RpcRdmaClient client, int n, int timeoutMs, int padding) {
        return client.call(CallRequest.builder(callbackCall(n, timeoutMs, padding)).build());
    }

    private long counter(Counter c) {
        return rdma.statistics().get(c);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(2);
        }
    }

    @Test
    void aProgramCallsItsClientBackWhileServingAndAnswersWithTheResult() throws Exception {
        RpcRdmaClient client = client(BackchannelTest::doubling, 2);
        int[] result = outcome(client.await(callback(client, 21, 10_000, 0), TIMEOUT));
        assertEquals(CallbackProgram.OK, result[0], "callback failed: " + program.failures);
        assertEquals(42, result[1], "the callback's answer travels back in the program's own reply");
        assertEquals(1, counter(Counter.BACKWARD_CALLS));
        assertEquals(1, counter(Counter.BACKWARD_REPLIES));
        assertEquals(0, counter(Counter.BACKWARD_REPLIES_UNMATCHED));
        assertEquals(1, client.statistics().backwardCalls());
        assertEquals(1, client.statistics().backwardReplies());
        RdmaConnection connection = rdma.connections().get(0);
        assertEquals(2, connection.backchannel().credits(), "the client's grant, from its backward reply");
        assertEquals(1, connection.statistics().get(Counter.BACKWARD_CALLS), "counted per connection too");
    }

    @Test
    void manyCallbacksAtOnceWithForwardCallsInFlightBothWays() throws Exception {
        RpcRdmaClient[] self = new RpcRdmaClient[1];
        AtomicInteger nested = new AtomicInteger();
        // The callback handler itself makes a forward call on the same connection before answering.
        RpcRdmaClient client = client(call -> {
            ByteBuffer echo = RpcWire.call(0x7000_0000 + nested.incrementAndGet(), BulkProgram.PROGRAM, BulkProgram.VERSION,
                    BulkProgram.NULL, new byte[0]);
            self[0].await(self[0].call(CallRequest.builder(echo).build()), TIMEOUT);
            return doubling(call);
        }, 3);
        self[0] = client;
        // Fewer callbacks than forward credits: each callback holds a credit until its nested
        // forward call (which needs one more) is answered.
        int n = 40;
        List<CompletableFuture<RpcReply>> callbacks = new ArrayList<>();
        List<CompletableFuture<RpcReply>> plain = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            callbacks.add(callback(client, i, 20_000, 0));
            plain.add(client.call(CallRequest.builder(RpcWire.call(xids.incrementAndGet(), BulkProgram.PROGRAM,
                    BulkProgram.VERSION, BulkProgram.NULL, new byte[0])).build()));
        }
        for (int i = 0; i < n; i++) {
            int[] result = outcome(client.await(callbacks.get(i), TIMEOUT));
            assertEquals(CallbackProgram.OK, result[0], "callback " + i + " failed: " + program.failures);
            assertEquals(2 * i, result[1]);
            assertNotNull(client.await(plain.get(i), TIMEOUT));
        }
        assertEquals(n, nested.get(), "every callback made its own forward call");
        assertEquals(n, counter(Counter.BACKWARD_CALLS));
        assertEquals(n, counter(Counter.BACKWARD_REPLIES));
        assertEquals(0, client.statistics().backwardCallsDropped(), "the server kept within the client's credits");
    }

    @Test
    void backwardCallsBeyondTheClientsCreditsWaitForACredit() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        RpcRdmaClient client = client(call -> {
            running.incrementAndGet();
            release.await();
            return doubling(call);
        }, 1);
        List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(callback(client, i, 0, 0));
        }
        RdmaConnection connection = rdma.connections().get(0);
        Backchannel channel = connection.backchannel();
        await(() -> channel.outstanding() == 1 && channel.waiting() == 2, "one backward call is out and two wait");
        await(() -> running.get() == 1, "the client runs the one backward call it was sent");
        assertEquals(1, counter(Counter.BACKWARD_CALLS), "a second call would exceed the client's single credit");
        release.countDown();
        for (int i = 0; i < 3; i++) {
            int[] result = outcome(client.await(calls.get(i), TIMEOUT));
            assertEquals(CallbackProgram.OK, result[0], "failures: " + program.failures);
            assertEquals(2 * i, result[1]);
        }
        assertEquals(3, counter(Counter.BACKWARD_CALLS));
        assertEquals(0, client.statistics().backwardCallsDropped());
        assertEquals(1, channel.credits(), "the client grants 1");
    }

    @Test
    void aCallbackWithoutAnswerTimesOutLikeOverTcpAndItsCreditComesBack() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        RpcRdmaClient client = client(call -> {
            if (calls.incrementAndGet() == 1) {
                never.await(); // the first callback is never answered in time
                return null;
            }
            return doubling(call);
        }, 2);
        int[] first = outcome(client.await(callback(client, 5, 200, 0), TIMEOUT));
        assertEquals(CallbackProgram.TIMED_OUT, first[0]);
        Throwable failure = program.failures.poll();
        assertInstanceOf(TimeoutException.class, failure);
        assertTrue(failure.getMessage().contains("backward call"), failure.getMessage());
        assertEquals(1, counter(Counter.BACKWARD_TIMEOUTS));
        assertEquals(0, rdma.connections().get(0).backchannel().outstanding(), "the timed-out call gave its credit back");
        int[] second = outcome(client.await(callback(client, 6, 10_000, 0), TIMEOUT));
        assertEquals(CallbackProgram.OK, second[0], "failures: " + program.failures);
        assertEquals(12, second[1]);
        never.countDown();
    }

    @Test
    void aReplyToNothingIsDroppedAndCountedAndTheConnectionServesOn() throws Exception {
        RpcRdmaClient client = client(BackchannelTest::doubling, 2);
        ByteBuffer stray = RpcMessage.putAcceptedReplyHeader(ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES),
                0x0bad_0001, RpcMessage.SUCCESS).flip();
        client.call(CallRequest.raw(rawMessage(stray), false));
        await(() -> counter(Counter.BACKWARD_REPLIES_UNMATCHED) == 1, "the stray reply is counted");
        assertEquals(1, counter(Counter.CALLS_DELIVERED), "a reply is never taken for a call (1: the first NULL)");
        int[] result = outcome(client.await(callback(client, 4, 10_000, 0), TIMEOUT));
        assertEquals(8, result[1]);
    }

    /** An RDMA_MSG with no chunks around {@code rpc}. */
    private static ByteBuffer rawMessage(ByteBuffer rpc) {
        int header = Xdr.wordsToBytes(RpcRdma.MIN_MSG_HEADER_WORDS);
        ByteBuffer m = ByteBuffer.allocate(header + rpc.remaining());
        new HeaderWriter().wrap(m, 0, header).fixedHeader(rpc.getInt(0), RpcRdma.VERSION_1, 8, RpcRdma.RDMA_MSG).finish();
        return m.position(header).put(rpc.duplicate()).flip();
    }

    @Test
    void aCallbackLargerThanTheClientsReceivesFailsAtOnceSayingWhy() throws Exception {
        RpcRdmaClient client = client(BackchannelTest::doubling, 2);
        int[] result = outcome(client.await(callback(client, 1, 10_000, 8192), TIMEOUT));
        assertEquals(CallbackProgram.REFUSED, result[0]);
        Throwable failure = program.failures.poll();
        assertInstanceOf(IOException.class, failure);
        assertTrue(failure.getMessage().contains("inline only"), failure.getMessage());
        assertEquals(1, counter(Counter.BACKWARD_CALLS_REFUSED));
        assertEquals(0, counter(Counter.BACKWARD_CALLS));
    }

    @Test
    void connectionLossFailsEveryOutstandingCallbackAtOnceAndAReconnectGetsAFreshBackChannel() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RpcRdmaClient client = client(call -> {
            release.await();
            return doubling(call);
        }, 1);
        for (int i = 0; i < 3; i++) {
            callback(client, i, 0, 0); // no timeout: only the connection's loss can end them
        }
        Backchannel channel = rdma.connections().get(0).backchannel();
        await(() -> channel.outstanding() == 1 && channel.waiting() == 2, "the callbacks are out and waiting");
        client.close();
        await(() -> program.failures.size() == 3, "every callback failed");
        for (Throwable failure : program.failures) {
            assertInstanceOf(EOFException.class, failure);
            assertTrue(failure.getMessage().contains("closed"), failure.getMessage());
        }
        assertEquals(3, counter(Counter.BACKWARD_CALLS_FAILED));
        release.countDown();

        RpcRdmaClient again = client(BackchannelTest::doubling, 2);
        int[] result = outcome(again.await(callback(again, 50, 10_000, 0), TIMEOUT));
        assertEquals(CallbackProgram.OK, result[0]);
        assertEquals(100, result[1]);
        assertEquals(1, rdma.connections().stream().filter(RdmaConnection::isOpen).count());
    }

    @Test
    void withoutABackChannelACallbackFailsAtOnceSayingWhy() throws Exception {
        stop();
        start(TransportConfig.builder().credits(64).backchannelCredits(0).build());
        RpcRdmaClient client = client(BackchannelTest::doubling, 2);
        int[] result = outcome(client.await(callback(client, 1, 10_000, 0), TIMEOUT));
        assertEquals(CallbackProgram.REFUSED, result[0]);
        assertTrue(program.failures.poll().getMessage().contains("backchannelCredits = 0"));
    }

    @Test
    void beyondTheWaitingLimitABackwardCallIsRefusedAndAMessageThatIsNoCallToo() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RpcRdmaClient client = client(call -> {
            release.await();
            return doubling(call);
        }, 1);
        Backchannel channel = rdma.connections().get(0).backchannel();
        assertEquals(Backchannel.SendOutcome.QUEUED, channel.send(cbCall(0x9000)));
        await(() -> channel.outstanding() == 1, "the first backward call is out");
        for (int i = 1; i <= Backchannel.MAX_WAITING; i++) {
            assertEquals(Backchannel.SendOutcome.QUEUED, channel.send(cbCall(0x9000 + i)), "call " + i);
        }
        assertEquals(Backchannel.MAX_WAITING, channel.waiting());
        assertEquals(Backchannel.SendOutcome.FULL, channel.send(cbCall(0x9999)), "one more than may wait");
        assertEquals(Backchannel.SendOutcome.NOT_A_CALL, channel.send(CallbackProgram.intReply(cbCall(0x9998), 1)));
        assertEquals(2, counter(Counter.BACKWARD_CALLS_REFUSED));
        release.countDown();
        await(() -> counter(Counter.BACKWARD_REPLIES) == Backchannel.MAX_WAITING + 1, "every queued call was answered in turn");
        assertEquals(0, channel.waiting());
        assertEquals(0, client.statistics().backwardCallsDropped(), "never more than the client's one credit at once");
    }

    // Issue #31, D1 (backward): oncrpc4j decoded the reply's verifier at the length the client
    // claimed; ~2^31 bytes threw OutOfMemoryError on the back-channel thread, which swallowed it,
    // so a callback without a timeout never returned.
    @Test
    void aBackwardReplyWhoseVerifierClaims2GiBFailsItsCallAtOnceNamingTheFault() throws Exception {
        AtomicInteger answers = new AtomicInteger();
        RpcRdmaClient client = client(call -> {
            if (answers.incrementAndGet() > 1) {
                return doubling(call);
            }
            ByteBuffer reply = doubling(call);
            return reply.putInt(16, 0x7fff_ffff); // the verifier's length
        }, 2);
        // No timeout: only the reply can end this callback.
        int[] result = outcome(client.await(callback(client, 3, 0, 0), TIMEOUT));
        assertEquals(CallbackProgram.REFUSED, result[0], "failures: " + program.failures);
        MalformedRpcHeaderException failure = assertInstanceOf(MalformedRpcHeaderException.class, program.failures.poll());
        assertEquals(RpcHeaderCheck.Fault.VERIFIER_TOO_LONG, failure.fault());
        assertTrue(failure.getMessage().contains("backward call"), failure.getMessage());
        assertEquals(1, counter(Counter.BACKWARD_REPLIES_MALFORMED));
        Backchannel channel = rdma.connections().get(0).backchannel();
        assertEquals(0, channel.outstanding(), "the malformed reply gave its credit back");
        int[] next = outcome(client.await(callback(client, 4, 0, 0), TIMEOUT));
        assertEquals(CallbackProgram.OK, next[0], "failures: " + program.failures);
        assertEquals(8, next[1]);
    }

    // Issue #31, D2: a backward reply with chunks went the forward way, completed its call
    // through the reply queue, and never gave its backward credit back: with the one credit
    // in force before a first inline reply, the second callback was never even sent.
    @Test
    void backwardRepliesWithChunksAreRefusedTheirCallsFailAtOnceAndTheirCreditsComeBack() throws Exception {
        // RDMA_MSG with the result in a read chunk. (An RDMA_NOMSG reply needs a registration
        // strategy to be READ, which this module has none of: TransportConformanceTest sends
        // one in the strategies' modules.)
        assertChunkedRepliesRefused((n, reply) -> reply.readChunk(24, 4), "inline only");
        assertEquals(4, counter(Counter.CALLS_DELIVERED), "neither reply was taken for a call (4: the NULL, three CALLBACKs)");
    }

    // A backward reply offering a write list or a reply chunk was taken as a sound reply; RFC
    // 8167 backward replies carry no chunks, and Linux drops such a message.
    @Test
    void backwardRepliesOfferingAWriteListOrAReplyChunkAreRefusedAndTheirCreditsComeBack() throws Exception {
        assertChunkedRepliesRefused((n, reply) -> n == 1 ? reply.writeChunk(4096) : reply.replyChunk(4096),
                "write list or a reply chunk");
    }

    /**
     * The client answers its first two callbacks with the chunks {@code chunked} adds to the
     * reply, the third inline: the first two fail at once with an IOException saying
     * {@code why}, each gives its credit back (no timeout: before the fix only the credit's
     * return could have let the second one out), and the third is served.
     */
    private void assertChunkedRepliesRefused(BiFunction<Integer, CallRequest.Builder, CallRequest.Builder> chunked,
            String why) throws Exception {
        RpcRdmaClient[] self = new RpcRdmaClient[1];
        AtomicInteger answers = new AtomicInteger();
        RpcRdmaClient client = client(call -> {
            int n = answers.incrementAndGet();
            if (n > 2) {
                return doubling(call);
            }
            CallRequest reply = chunked.apply(n, CallRequest.builder(doubling(call)).expectNoReply()).build();
            self[0].await(self[0].call(reply), TIMEOUT);
            return null; // answered already
        }, 2);
        self[0] = client;
        Backchannel channel = rdma.connections().get(0).backchannel();
        for (int i = 1; i <= 2; i++) {
            int[] result = outcome(client.await(callback(client, i, 0, 0), TIMEOUT));
            assertEquals(CallbackProgram.REFUSED, result[0], "reply " + i + " refused; failures: " + program.failures);
            Throwable failure = program.failures.poll();
            assertInstanceOf(IOException.class, failure);
            assertTrue(failure.getMessage().contains(why), failure.getMessage());
            assertEquals(0, channel.outstanding(), "reply " + i + " gave its credit back");
        }
        assertEquals(2, counter(Counter.BACKWARD_REPLIES_REFUSED));
        int[] third = outcome(client.await(callback(client, 7, 0, 0), TIMEOUT));
        assertEquals(CallbackProgram.OK, third[0], "failures: " + program.failures);
        assertEquals(14, third[1]);
        assertEquals(0, channel.outstanding());
        assertEquals(3, counter(Counter.BACKWARD_CALLS));
        assertEquals(1, counter(Counter.BACKWARD_REPLIES));
    }

    /** A CB_DOUBLE call message as oncrpc4j would encode it (AUTH_NONE), argument 1. */
    private static ByteBuffer cbCall(int xid) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Xdr.UNIT_BYTES);
        return RpcMessage.putCallHeader(b, xid, CallbackProgram.CB_PROGRAM, CallbackProgram.CB_VERSION,
                CallbackProgram.CB_DOUBLE).putInt(1).flip();
    }
}
