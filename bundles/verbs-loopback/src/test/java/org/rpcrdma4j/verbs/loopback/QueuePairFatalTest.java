package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.ConnectionEventType;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.QueuePairState;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.PairOptions;
import org.rpcrdma4j.verbs.conformance.SeenEvent;

/** A fatal queue pair event, injected: QUEUE_PAIR_FATAL once, on the failed side only, its requests flushed. */
class QueuePairFatalTest {
    @Test
    void aFailedQueuePairIsReportedOnceToItsOwnManagerAndFlushesItsRequests() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            bed.serverReceive(sink, 0, 64, 7);
            bed.fabric.faults().failQueuePair(bed.server.connection());
            bed.fabric.runUntilIdle();
            assertEquals(QueuePairState.ERROR, bed.server.queuePair().state());
            SeenEvent fatal = bed.pair.serverEvents().await(ConnectionEventType.QUEUE_PAIR_FATAL);
            assertSame(bed.server.connection(), fatal.connection());
            assertEquals(1, fatal.status(), "IBV_EVENT_QP_FATAL");
            WorkCompletion flushed = bed.pollOne(bed.server.completionQueue());
            assertEquals(7, flushed.id());
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, flushed.status());

            bed.fabric.faults().failQueuePair(bed.server.connection());
            bed.fabric.runUntilIdle();
            assertNull(bed.pair.serverEvents().poll(ConnectionEventType.QUEUE_PAIR_FATAL), "reported once");
            assertNull(bed.pair.clientEvents().poll(ConnectionEventType.QUEUE_PAIR_FATAL), "the peer's queue pair did not fail");
            assertEquals(QueuePairState.READY_TO_SEND, bed.client.queuePair().state());

            bed.server.connection().disconnect(); // what a consumer does on QUEUE_PAIR_FATAL: the peer learns
            bed.fabric.runUntilIdle();
            bed.pair.clientEvents().await(ConnectionEventType.DISCONNECTED);
        }
    }
}
