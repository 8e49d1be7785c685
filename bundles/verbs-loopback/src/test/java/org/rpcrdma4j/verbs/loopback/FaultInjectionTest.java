package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.loopback.LoopbackFaults.WorkKind;
import org.rpcrdma4j.verbs.conformance.PairOptions;

/** Fault injection, delayed completions and completion-queue overflow, step by step. */
class FaultInjectionTest {
    @Test
    void theNthRequestFailsWithTheChosenStatusAndTheRestIsFlushed() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 3, Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                bed.serverReceive(sink, i * 64, 64, 100 + i);
            }
            bed.fabric.faults().failWorkRequest(2, CompletionStatus.REMOTE_OPERATION_ERROR);
            for (int i = 1; i <= 3; i++) {
                bed.clientSend(source, 64, i, SendWorkRequest.SIGNALED);
            }
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.SUCCESS, bed.pollOne(bed.client.completionQueue()).status());
            WorkCompletion failed = bed.pollOne(bed.client.completionQueue());
            assertEquals(2, failed.id());
            assertEquals(CompletionStatus.REMOTE_OPERATION_ERROR, failed.status());
            WorkCompletion flushed = bed.pollOne(bed.client.completionQueue());
            assertEquals(3, flushed.id());
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, flushed.status());
            assertEquals(QueuePairState.ERROR, bed.client.queuePair().state());
        }
    }

    @Test
    void delayedCompletionsBecomeVisibleAfterTheirTicks() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            source.buffer().put(0, (byte) 5);
            bed.fabric.faults().delayCompletions(3);
            bed.serverReceive(sink, 0, 64, 1);
            bed.clientSend(source, 64, 2, SendWorkRequest.SIGNALED);
            assertTrue(bed.fabric.step());
            assertEquals(5, sink.buffer().get(0), "data is placed at once; only the completion waits");
            for (int tick = 1; tick < 3; tick++) {
                assertNull(bed.pollOne(bed.server.completionQueue()), "tick " + tick);
                assertTrue(bed.fabric.step(), "held back completions count as work");
            }
            assertNull(bed.pollOne(bed.server.completionQueue()));
            assertTrue(bed.fabric.step());
            assertEquals(1, bed.pollOne(bed.server.completionQueue()).id());
            assertEquals(2, bed.pollOne(bed.client.completionQueue()).id());
            assertEquals(0, bed.fabric.runUntilIdle());
        }
    }

    @Test
    void aDroppedConnectionFailsTheOldestSendFlushesTheRestAndDisconnectsBothSides() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            bed.clientSend(source, 64, 1, 0);
            bed.clientSend(source, 64, 2, 0);
            bed.fabric.runUntilIdle();
            bed.fabric.faults().dropConnection(bed.client.connection());
            WorkCompletion first = bed.pollOne(bed.client.completionQueue());
            assertEquals(1, first.id());
            assertEquals(CompletionStatus.TRANSPORT_RETRY_EXCEEDED, first.status());
            WorkCompletion second = bed.pollOne(bed.client.completionQueue());
            assertEquals(2, second.id());
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, second.status());
            assertEquals(QueuePairState.ERROR, bed.server.queuePair().state());
            bed.pair.clientEvents().await(ConnectionEventType.DISCONNECTED);
            bed.pair.serverEvents().await(ConnectionEventType.DISCONNECTED);
        }
    }

    @Test
    void completionQueueOverflowIsReportedAndTheQueuePairFails() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults().withCompletionQueueCapacity(2))) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 3, Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                bed.serverReceive(sink, i * 64, 64, i);
                bed.clientSend(source, 64, i, 0);
            }
            bed.server.completionQueue().requestNotification();
            bed.fabric.runUntilIdle();
            assertTrue(bed.server.completionQueue().awaitNotification(0, TimeUnit.NANOSECONDS));
            VerbsException overflow = assertThrows(VerbsException.class, () -> bed.pollOne(bed.server.completionQueue()));
            assertEquals(Errno.EOVERFLOW, overflow.errno());
            assertEquals(QueuePairState.ERROR, bed.server.queuePair().state());
        }
    }

    @Test
    void aTargetedFaultHitsOnlyTheNextRequestOfItsKindOnItsConnection() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 4, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            for (int i = 0; i < 2; i++) {
                bed.serverReceive(sink, i * 64, 64, 100 + i);
            }
            // A WRITE fault aimed at the client's end: the client's SEND is not a WRITE and passes.
            bed.fabric.faults().failNext(WorkKind.RDMA_WRITE, bed.client.connection(), CompletionStatus.REMOTE_ACCESS_ERROR);
            assertEquals(bed.server.connection(), bed.fabric.faults().remoteEnd(bed.client.connection()));
            bed.clientSend(source, 16, 1, SendWorkRequest.SIGNALED);
            bed.fabric.runUntilIdle();
            assertEquals(CompletionStatus.SUCCESS, bed.pollOne(bed.client.completionQueue()).status());
            assertEquals(CompletionStatus.SUCCESS, bed.pollOne(bed.server.completionQueue()).status());
            assertTrue(bed.fabric.faults().targetedFaultPending());
            bed.client.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, 2, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, 16).remote(sink.addressOf(128), sink.rkey()));
            bed.client.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, 3, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, 16).remote(sink.addressOf(192), sink.rkey()));
            bed.fabric.runUntilIdle();
            assertFalse(bed.fabric.faults().targetedFaultPending());
            WorkCompletion failed = bed.pollOne(bed.client.completionQueue());
            assertEquals(2, failed.id());
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, failed.status());
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, bed.pollOne(bed.client.completionQueue()).status());
            assertEquals(QueuePairState.ERROR, bed.client.queuePair().state());
            assertEquals(QueuePairState.READY_TO_SEND, bed.server.queuePair().state(), "the fault is the requester's own");
        }
    }

    @Test
    void aTargetedReceiveFaultFailsTheReceiveAndTheSendThatArrivedForIt() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 2, Access.LOCAL_WRITE);
            bed.serverReceive(sink, 0, 64, 100);
            bed.serverReceive(sink, 64, 64, 101);
            bed.fabric.faults().failNext(WorkKind.RECV, bed.server.connection(), CompletionStatus.LOCAL_LENGTH_ERROR);
            bed.clientSend(source, 16, 1, SendWorkRequest.SIGNALED);
            bed.fabric.runUntilIdle();
            WorkCompletion receive = bed.pollOne(bed.server.completionQueue());
            assertEquals(100, receive.id());
            assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, receive.status());
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, bed.pollOne(bed.server.completionQueue()).status());
            assertEquals(CompletionStatus.REMOTE_OPERATION_ERROR, bed.pollOne(bed.client.completionQueue()).status());
            assertEquals(QueuePairState.ERROR, bed.server.queuePair().state());
        }
    }

    @Test
    void theNthPostIsRefusedSynchronouslyAndTheRequestsBeforeItInItsChainStayPosted() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 4, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            bed.fabric.faults().failPost(3);
            bed.client.queuePair().postSend(new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, 1, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, 16).remote(sink.addressOf(0), sink.rkey()));
            SendWorkRequest second = new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, 2, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, 16).remote(sink.addressOf(64), sink.rkey());
            SendWorkRequest third = new SendWorkRequest(1).reset(SendOpcode.RDMA_WRITE, 3, SendWorkRequest.SIGNALED)
                    .addSge(source, 0, 16).remote(sink.addressOf(128), sink.rkey());
            second.next(third);
            VerbsException refused = assertThrows(VerbsException.class, () -> bed.client.queuePair().postSend(second));
            assertEquals(1, refused.failedIndex(), "the second of the chain, the third post");
            assertEquals(Errno.ENOMEM, refused.errno());
            bed.fabric.runUntilIdle();
            assertEquals(1, bed.pollOne(bed.client.completionQueue()).id());
            assertEquals(2, bed.pollOne(bed.client.completionQueue()).id(), "the request before the refused one executes");
            assertNull(bed.pollOne(bed.client.completionQueue()), "the refused one was never posted");
            assertEquals(QueuePairState.READY_TO_SEND, bed.client.queuePair().state(), "a refused post is no error of the queue pair");
        }
    }
}
