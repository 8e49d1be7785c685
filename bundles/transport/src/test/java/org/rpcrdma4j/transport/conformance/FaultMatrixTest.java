package org.rpcrdma4j.transport.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.PendingReply;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Connection;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;
import org.rpcrdma4j.verbs.loopback.LoopbackFaults.WorkKind;

/**
 * FaultMatrixTest - issue #15's standing defence: every kind of work request the server posts or
 * meets, failed with every status that kind can meet on a real device, at every stage of a call
 * (a backward call's SEND among them), on one of two connections. Subclassed once per
 * registration strategy (lkey: RECV, SEND, READ, WRITE; FRMR adds REG_MR and LOCAL_INV, which
 * only it posts).
 *
 * <p>Each cell runs on a fresh deterministic loopback fabric: a bystander connects and exercises
 * every shape of call and reply (so lazily made resources exist), the baseline is measured, a
 * victim connects with a call held by the program, the fault is aimed at the victim's server-side
 * queue pair for the next request of the cell's kind, the stage is driven, and then:
 * <ul>
 * <li>the fault hit (a cell that cannot reach its request fails, so no cell passes vacuously);</li>
 * <li>the victim's connection, and only it, is closed; the bystander's next call is answered;</li>
 * <li>none of the victim's calls is silently lost: each was answered, or the victim saw its
 *     connection close; the call the program still held is answered into a closed connection
 *     and counted as dropped;</li>
 * <li>with the victim's client gone, every pool is back to the baseline: receive contexts held and
 *     posted, READ sinks and READs, send buffers and send-queue slots, reply staging, the sink
 *     registrations, and on the fabric the registrations, queue pairs and completion queues.</li>
 * </ul>
 * The harness drives the transport with {@code doWork()} on the test thread: it starts no loop or
 * worker thread, so there is no thread count to compare.
 *
 * <p>The program-failure rows ({@link #programErrorMatrix()}) run the whole server with its own
 * threads instead: there a thread lost is what they look for.
 */
public abstract class FaultMatrixTest {
    private static final int ITEM = 8000;
    private static final int REPLY_CHUNK_MESSAGE = 8000;

    /** @return the strategy under test */
    protected abstract RegistrationStrategy strategy();

    /** @return true when the strategy registers READ sinks with REG_MR and invalidates them with LOCAL_INV */
    protected abstract boolean fastRegistration();

    /** The stages of a call at which the victim's request fails. */
    enum Stage {
        /** The RECV of an inline call. */
        INLINE_CALL,
        /** A call with a read chunk of three segments, while its READ chains are in flight. */
        READ_CHUNK_CALL,
        /**
         * With four READ sinks for the loop: the victim's call (three sinks) has its READs in
         * flight, its next call waits for sinks, and so does a call of the bystander, which must
         * be served once the victim's sinks come back.
         */
        READ_WITH_BACKLOG,
        /** A call is held by the program when the next message's RECV fails. */
        PROGRAM_RUNNING,
        /** The SEND of an inline reply. */
        INLINE_REPLY,
        /** The RDMA WRITE into the client's write chunk, or the SEND after it. */
        WRITE_CHUNK_REPLY,
        /** The RDMA WRITE into the client's reply chunk, or the RDMA_NOMSG SEND after it. */
        REPLY_CHUNK_REPLY,
        /** The SEND of a backward call to the client (RFC 8167). */
        BACKCHANNEL_CALL
    }

    record Cell(WorkKind kind, Stage stage, CompletionStatus status, boolean flushesLost) {
        @Override
        public String toString() {
            return stage + " " + kind + " " + status + (flushesLost ? " flushes lost" : "");
        }
    }

    /*
     * The statuses each kind can meet on a real device (IB spec vol. 1 §10.8.3 and
     * ibv_poll_cq(3)); the contract has no MW_BIND_ERR or REM_ABORT_ERR. Any of them moves the
     * queue pair to the error state.
     * - RECV (the responder's receive): a message longer than the buffer (LOC_LEN), a bad
     *   receive lkey (LOC_PROT), a malformed receive (LOC_QP_OP), flushed when the queue pair
     *   failed for another reason (WR_FLUSH), and the vendor's catch-all (GENERAL).
     * - SEND: the local errors (LOC_LEN, LOC_QP_OP, LOC_PROT), flush, and the peer's answers: its
     *   receive too small or a bad Send With Invalidate key (REM_INV_REQ), its receive failing
     *   (REM_OP), no ACK (RETRY_EXC), no receive posted for the RNR retries (RNR_RETRY_EXC), a
     *   response of the wrong kind (BAD_RESP), GENERAL. Not REM_ACCESS (a SEND names no remote key).
     * - RDMA WRITE: the same without RNR (a WRITE consumes no receive) but with REM_ACCESS (the
     *   client's rkey or range is bad).
     * - RDMA READ: as WRITE, plus LOC_ACCESS (placing the READ response into the local sink).
     * - REG_MR and LOCAL_INV: local only, never on the wire: LOC_QP_OP (a bad registration
     *   request), LOC_PROT (the key is not the domain's; the contract's counterpart of
     *   MW_BIND_ERR), flush, GENERAL.
     */
    private static final Set<CompletionStatus> LOCAL_FLUSH_GENERAL = EnumSet.of(CompletionStatus.LOCAL_QP_OPERATION_ERROR,
            CompletionStatus.LOCAL_PROTECTION_ERROR, CompletionStatus.WORK_REQUEST_FLUSHED, CompletionStatus.GENERAL_ERROR);

    static Set<CompletionStatus> statusesOf(WorkKind kind) {
        EnumSet<CompletionStatus> s = EnumSet.copyOf(LOCAL_FLUSH_GENERAL);
        switch (kind) {
            case RECV:
                s.add(CompletionStatus.LOCAL_LENGTH_ERROR);
                return s;
            case SEND:
                s.addAll(EnumSet.of(CompletionStatus.LOCAL_LENGTH_ERROR, CompletionStatus.REMOTE_INVALID_REQUEST_ERROR,
                        CompletionStatus.REMOTE_OPERATION_ERROR, CompletionStatus.TRANSPORT_RETRY_EXCEEDED,
                        CompletionStatus.RNR_RETRY_EXCEEDED, CompletionStatus.BAD_RESPONSE));
                return s;
            case RDMA_WRITE:
                s.addAll(EnumSet.of(CompletionStatus.LOCAL_LENGTH_ERROR, CompletionStatus.REMOTE_INVALID_REQUEST_ERROR,
                        CompletionStatus.REMOTE_ACCESS_ERROR, CompletionStatus.REMOTE_OPERATION_ERROR,
                        CompletionStatus.TRANSPORT_RETRY_EXCEEDED, CompletionStatus.BAD_RESPONSE));
                return s;
            case RDMA_READ:
                s.addAll(EnumSet.of(CompletionStatus.LOCAL_LENGTH_ERROR, CompletionStatus.LOCAL_ACCESS_ERROR,
                        CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, CompletionStatus.REMOTE_ACCESS_ERROR,
                        CompletionStatus.REMOTE_OPERATION_ERROR, CompletionStatus.TRANSPORT_RETRY_EXCEEDED,
                        CompletionStatus.BAD_RESPONSE));
                return s;
            default:
                return s;
        }
    }

    /** @return the kinds of request the server meets at {@code stage} with this strategy */
    private List<WorkKind> kindsAt(Stage stage) {
        switch (stage) {
            case INLINE_CALL:
            case PROGRAM_RUNNING:
                return List.of(WorkKind.RECV);
            case READ_CHUNK_CALL:
            case READ_WITH_BACKLOG:
                return fastRegistration() ? List.of(WorkKind.REG_MR, WorkKind.RDMA_READ, WorkKind.LOCAL_INV)
                        : List.of(WorkKind.RDMA_READ);
            case INLINE_REPLY:
            case BACKCHANNEL_CALL:
                return List.of(WorkKind.SEND);
            default:
                return List.of(WorkKind.RDMA_WRITE, WorkKind.SEND);
        }
    }

    List<Cell> cells() {
        List<Cell> cells = new ArrayList<>();
        for (Stage stage : Stage.values()) {
            for (WorkKind kind : kindsAt(stage)) {
                for (CompletionStatus status : statusesOf(kind)) {
                    cells.add(new Cell(kind, stage, status, false));
                }
            }
            // And once per stage on a queue pair that loses its flushes (Soft-iWARP of Linux 6.1):
            // the close's deadline must reclaim what never flushed, back to the same baseline.
            WorkKind first = kindsAt(stage).get(0);
            cells.add(new Cell(first, stage, CompletionStatus.GENERAL_ERROR, true));
        }
        return cells;
    }

    @TestFactory
    Stream<DynamicTest> faultMatrix() {
        return cells().stream().map(cell -> DynamicTest.dynamicTest(cell.toString(), () -> run(cell)));
    }

    /**
     * issue #31 (D3): a program that throws an Error (a real StackOverflowError, AssertionError,
     * OutOfMemoryError, NoClassDefFoundError) on a completion-loop thread or on a worker, with
     * this registration strategy; see {@link ProgramErrorCell} for what each row checks.
     */
    @TestFactory
    Stream<DynamicTest> programErrorMatrix() {
        List<DynamicTest> rows = new ArrayList<>();
        for (ProgramErrorCell.CallPath path : ProgramErrorCell.CallPath.values()) {
            for (ProgramErrorCell.Failure failure : ProgramErrorCell.Failure.values()) {
                rows.add(DynamicTest.dynamicTest("program throws " + failure + " on " + path,
                        () -> ProgramErrorCell.run(strategy(), failure, path)));
            }
        }
        return rows.stream();
    }

    /** A snapshot of every pool the matrix checks. */
    private record Pools(ResourceUsage usage, int fabricRegistrations, int queuePairs, int completionQueues) {
        /** The same, posted receives left out (they move within a repost batch). */
        Pools withoutPostedReceives() {
            ResourceUsage u = usage;
            return new Pools(new ResourceUsage(u.heldReceiveContexts(), 0, u.sendBuffersInUse(), u.readsInFlight(),
                    u.outstandingSinks(), u.sinkRegistrations(), u.connections(), u.replyStagingBytes(),
                    u.sendQueueSlotsInUse(), u.registeredBytes()), fabricRegistrations, queuePairs, completionQueues);
        }
    }

    private static Pools pools(TransportHarness h) {
        LoopbackFabric f = h.fabric();
        return new Pools(h.usage(), f.registrationCount(), f.queuePairCount(), f.completionQueueCount());
    }

    private void run(Cell cell) throws Exception {
        RecordingHandler handler = new RecordingHandler();
        TransportConfig.Builder builder = TransportConfig.builder().completionLoops(1);
        if (cell.flushesLost()) {
            builder.stallTimeoutSeconds(1);
        }
        if (cell.stage() == Stage.READ_WITH_BACKLOG) {
            builder.readSinkCount(4).readSinkLength(4096);
        }
        TransportConfig config = builder.build();
        try (TransportHarness h = new TransportHarness(LoopbackFabric.builder().build(), config, handler, strategy())) {
            RawPeer bystander = h.connect();
            warmUp(h, handler, bystander);
            h.settle();
            Pools baseline = pools(h);
            TransportStatistics stats = h.transport().statistics();

            RawPeer victim = h.connect();
            RdmaConnection victimConnection = connectionOf(h, victim);
            Set<Integer> victimXids = new HashSet<>();
            // A call the program holds while the fault strikes.
            int held = 0x100;
            victimXids.add(held);
            CallBuilder.msg(held).inline(CallBuilder.bytes(16, 1)).send(victim, 0);
            h.settle();
            List<ReceivedCall> first = handler.takeAll();
            assertEquals(1, first.size(), "the held call is delivered");
            PendingReply heldReply = first.get(0).detachReply();
            first.get(0).release();
            long droppedBefore = stats.get(Counter.REPLIES_DROPPED);
            long backwardFailedBefore = stats.get(Counter.BACKWARD_CALLS_FAILED);

            Connection serverEnd = h.fabric().faults().remoteEnd(victim.connection());
            if (cell.stage() == Stage.READ_WITH_BACKLOG) {
                call(victim, 0x201, Shape.READ_CHUNK).send(victim, 0);
                victimXids.add(0x201);
            }
            if (cell.flushesLost()) {
                h.fabric().faults().loseFlushes(serverEnd);
            }
            List<ReceivedCall> running = drive(cell, h, handler, victim, victimConnection, serverEnd, victimXids);
            if (cell.stage() == Stage.READ_WITH_BACKLOG) {
                // The victim's two calls land and the transport takes them (the first one's READs
                // posted on three of the four sinks, not yet executed; the second waits for
                // sinks); then the bystander's call comes, and waits behind them.
                h.fabric().runUntilIdle();
                h.transport().doWork();
                call(bystander, 0x950, Shape.READ_CHUNK).send(bystander, 0);
            }
            h.settle();
            assertFalse(h.fabric().faults().targetedFaultPending(),
                    () -> "the fault never reached a " + cell.kind() + " at " + cell.stage() + ": " + stats + " " + h.usage());
            if (cell.flushesLost()) {
                // Not vacuous: the victim's connection waits for flushes that never come ...
                h.settle();
                assertEquals(2, h.transport().connections().size(), () -> "the victim's close waits for its flushes: " + h.usage());
                assertEquals(0, stats.get(Counter.CLOSE_FLUSHES_LOST));
                // ... until the deadline (stallTimeoutSeconds) destroys its queue pair and reclaims them.
                Thread.sleep(1100);
                h.settle();
                assertEquals(1, stats.get(Counter.CLOSE_FLUSHES_LOST), () -> "reclaimed at the deadline: " + h.usage());
            }

            assertFalse(victimConnection.isOpen(), "the victim's connection is closed");
            assertTrue(victim.isDisconnected(), "the victim's client saw its connection close");
            assertFalse(bystander.isDisconnected(), "the bystander's connection stays");

            // The calls the program ran, and whatever reached it after the fault, are answered
            // (into a closed connection).
            List<ReceivedCall> pending = new ArrayList<>(running);
            pending.addAll(handler.takeAll());
            int bystanderCalls = 0;
            for (ReceivedCall c : pending) {
                if (c.connection() != victimConnection) {
                    assertEquals(0x950, c.xid(), "the only bystander call pending is the one that waited for sinks");
                    bystanderCalls++;
                }
                PendingReply r = c.detachReply();
                c.release();
                r.send(reply(r.xid(), 0), -1);
            }
            heldReply.send(reply(held, 0), -1);
            h.settle();
            if (cell.stage() == Stage.READ_WITH_BACKLOG) {
                assertEquals(1, bystanderCalls, "the bystander's call that waited for sinks is delivered");
                List<byte[]> replies = bystander.takeReplies();
                assertEquals(1, replies.size(), "and answered");
                assertEquals(0x950, ByteBuffer.wrap(replies.get(0)).getInt(0));
            }
            assertEquals(1, h.transport().connections().size(), () -> "only the victim's connection is gone: " + h.usage());
            assertTrue(stats.get(Counter.REPLIES_DROPPED) > droppedBefore, "the held call's reply is dropped and counted");
            if (cell.stage() == Stage.BACKCHANNEL_CALL) {
                assertEquals(backwardFailedBefore + 1, stats.get(Counter.BACKWARD_CALLS_FAILED),
                        "the backward call is failed by the close, and counted");
            }
            Set<Integer> answered = new HashSet<>();
            for (byte[] m : victim.takeReplies()) {
                answered.add(ByteBuffer.wrap(m).getInt(0));
            }
            for (int xid : victimXids) {
                assertTrue(answered.contains(xid) || victim.isDisconnected(), "call " + xid + " was lost in silence");
            }

            // The bystander is served after the fault.
            answerOne(h, handler, bystander, 0x900, Shape.INLINE);

            h.forget(victim);
            h.settle();
            Pools after = pools(h);
            // Receives are reposted in batches: between the credits (and backward replies') and a batch more.
            int posted = config.credits() + config.backchannelCredits();
            int most = Math.min(config.receiveContexts(), posted + config.repostBatch());
            int now = after.usage().postedReceives();
            assertTrue(now >= posted && now <= most, () -> "receives posted for the bystander: " + after);
            assertEquals(baseline.withoutPostedReceives(), after.withoutPostedReceives(), "every pool back to its baseline");
        }
    }

    /**
     * issue #15, suspected window: a reply's chain (its RDMA WRITE, then its SEND) fails to post
     * after the WRITE was posted. The WRITE reads the reply's staging extent until it completes
     * (here: until its flush completion, held back a few ticks as a device's can be, is polled),
     * so the extent must stay allocated until then; freed at once, it could be handed to another
     * reply while the NIC still read it for this peer. Failed with 431b232's change reverted: the
     * staging bytes dropped to zero while the WRITE's send-queue slot was still in use.
     */
    @Test
    void aReplyWhoseChainFailsToPostAfterItsWriteKeepsItsStagingUntilTheWriteCompletes() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        TransportConfig config = TransportConfig.builder().completionLoops(1).build();
        try (TransportHarness h = new TransportHarness(LoopbackFabric.builder().build(), config, handler, strategy())) {
            RawPeer bystander = h.connect();
            RawPeer victim = h.connect();
            TransportStatistics stats = h.transport().statistics();
            call(victim, 0x400, Shape.WRITE_CHUNK).send(victim, 0);
            h.settle();
            List<ReceivedCall> calls = handler.takeAll();
            assertEquals(1, calls.size());
            PendingReply r = calls.get(0).detachReply();
            calls.get(0).release();
            assertEquals(0, h.usage().replyStagingBytes());

            h.fabric().faults().delayCompletions(4);
            h.fabric().faults().failPost(2); // the chain is WRITE (posted), SEND (refused)
            r.send(reply(0x400, ITEM), 24);
            int window = 0;
            for (int i = 0; i < 50 && !victim.isDisconnected(); i++) {
                h.step();
                ResourceUsage u = h.usage();
                if (u.sendQueueSlotsInUse() > 0) {
                    window++;
                    assertTrue(u.replyStagingBytes() >= ITEM,
                            () -> "the staging extent was freed while the reply's posted WRITE had not completed: " + u);
                }
            }
            assertEquals(1, stats.get(Counter.POST_FAILURES), "the chain's SEND was refused");
            assertTrue(window > 0, "the WRITE was outstanding after the failed post");
            h.fabric().faults().delayCompletions(0);
            h.settle();
            assertTrue(victim.isDisconnected(), "a failed post closes the connection");
            ResourceUsage u = h.usage();
            assertEquals(0, u.replyStagingBytes(), "released once the WRITE completed: " + u);
            assertEquals(0, u.sendQueueSlotsInUse(), "" + u);
            assertEquals(0, u.sendBuffersInUse(), "" + u);
            answerOne(h, handler, bystander, 0x401, Shape.WRITE_CHUNK);
        }
    }

    private static RdmaConnection connectionOf(TransportHarness h, RawPeer client) {
        for (RdmaConnection c : h.transport().connections()) {
            if (c.remoteAddress().equals(client.localAddress())) {
                return c;
            }
        }
        throw new AssertionError("no server connection for " + client.localAddress());
    }

    private enum Shape {
        INLINE, READ_CHUNK, WRITE_CHUNK, REPLY_CHUNK
    }

    private static void warmUp(TransportHarness h, RecordingHandler handler, RawPeer bystander) throws Exception {
        int xid = 0x800;
        for (Shape shape : Shape.values()) {
            answerOne(h, handler, bystander, xid++, shape);
        }
    }

    private static CallBuilder call(RawPeer client, int xid, Shape shape) {
        CallBuilder b = CallBuilder.msg(xid).inline(CallBuilder.bytes(16, xid));
        switch (shape) {
            case READ_CHUNK:
                return b.chunk(CallBuilder.bytes(9000, xid), 3000, 3000, 3000);
            case WRITE_CHUNK:
                return b.writeChunk(client.memory().sinkRkey(), 64 * 1024, client.memory().sinkAddress(0));
            case REPLY_CHUNK:
                return b.replyChunk(client.memory().sinkRkey(), 64 * 1024, client.memory().sinkAddress(128 * 1024));
            default:
                return b;
        }
    }

    /** The RPC reply the program sends: an accepted-reply prefix, then an opaque of {@code item} bytes (or padding). */
    static ByteBuffer reply(int xid, int item) {
        int length = RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Xdr.UNIT_BYTES + (int) Xdr.roundUp(item);
        ByteBuffer b = ByteBuffer.allocate(length);
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(item);
        if (item > 0) {
            b.put(CallBuilder.bytes(item, xid));
        }
        return b.position(0).limit(length);
    }

    private static ByteBuffer replyFor(int xid, Shape shape) {
        switch (shape) {
            case WRITE_CHUNK:
                return reply(xid, ITEM);
            case REPLY_CHUNK:
                return reply(xid, REPLY_CHUNK_MESSAGE);
            default:
                return reply(xid, 0);
        }
    }

    /** A call of {@code shape} from {@code client}, answered by the program, the reply checked at the client. */
    private static void answerOne(TransportHarness h, RecordingHandler handler, RawPeer client, int xid, Shape shape)
            throws Exception {
        call(client, xid, shape).send(client, 0);
        h.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size(), "the call is delivered");
        PendingReply r = calls.get(0).detachReply();
        calls.get(0).release();
        r.send(replyFor(xid, shape), shape == Shape.WRITE_CHUNK ? 24 : -1);
        h.settle();
        List<byte[]> replies = client.takeReplies();
        assertEquals(1, replies.size(), "one reply");
        assertEquals(xid, ByteBuffer.wrap(replies.get(0)).getInt(0), "the reply's xid");
    }

    /**
     * Drives the cell's stage on the victim: arms the fault just before the request it aims at can
     * execute, sends the victim's call, and answers it in the reply stages.
     *
     * @return calls the program still runs (held, unreleased) when the fault strikes
     */
    private static List<ReceivedCall> drive(Cell cell, TransportHarness h, RecordingHandler handler, RawPeer victim,
                                            RdmaConnection victimConnection, Connection serverEnd, Set<Integer> xids)
            throws Exception {
        int xid = 0x200;
        xids.add(xid);
        switch (cell.stage()) {
            case INLINE_CALL:
                arm(cell, h, serverEnd);
                call(victim, xid, Shape.INLINE).send(victim, 0);
                return List.of();
            case READ_CHUNK_CALL:
            case READ_WITH_BACKLOG:
                arm(cell, h, serverEnd);
                call(victim, xid, Shape.READ_CHUNK).send(victim, 0);
                return List.of();
            case PROGRAM_RUNNING: {
                // The program runs a call with a read chunk (its sinks held) when the next RECV fails.
                call(victim, 0x300, Shape.READ_CHUNK).send(victim, 0);
                xids.add(0x300);
                h.settle();
                List<ReceivedCall> running = handler.takeAll();
                assertEquals(1, running.size(), "the running call is delivered");
                arm(cell, h, serverEnd);
                call(victim, xid, Shape.INLINE).send(victim, 0);
                return running;
            }
            case INLINE_REPLY:
                answerAfterDelivery(cell, h, handler, victim, serverEnd, xid, Shape.INLINE);
                return List.of();
            case WRITE_CHUNK_REPLY:
                answerAfterDelivery(cell, h, handler, victim, serverEnd, xid, Shape.WRITE_CHUNK);
                return List.of();
            case BACKCHANNEL_CALL: {
                xids.remove(xid);
                arm(cell, h, serverEnd);
                ByteBuffer backwardCall = RpcMessage.putCallHeader(
                        ByteBuffer.allocate(RpcMessage.NULL_AUTH_CALL_HEADER_BYTES), 0x7001, 0x40000000, 1, 0).flip();
                assertEquals(Backchannel.SendOutcome.QUEUED, victimConnection.backchannel().send(backwardCall));
                return List.of();
            }
            default:
                answerAfterDelivery(cell, h, handler, victim, serverEnd, xid, Shape.REPLY_CHUNK);
                return List.of();
        }
    }

    private static void arm(Cell cell, TransportHarness h, Connection serverEnd) {
        h.fabric().faults().failNext(cell.kind(), serverEnd, cell.status());
    }

    private static void answerAfterDelivery(Cell cell, TransportHarness h, RecordingHandler handler, RawPeer victim,
                                            Connection serverEnd, int xid, Shape shape) throws Exception {
        call(victim, xid, shape).send(victim, 0);
        h.settle();
        List<ReceivedCall> calls = handler.takeAll();
        assertEquals(1, calls.size(), "the victim's call is delivered");
        PendingReply r = calls.get(0).detachReply();
        calls.get(0).release();
        arm(cell, h, serverEnd);
        r.send(replyFor(xid, shape), shape == Shape.WRITE_CHUNK ? 24 : -1);
    }
}
