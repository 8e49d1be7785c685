package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
