package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.MemoryRegion;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.WorkCompletion;
import org.rpcrdma4j.verbs.conformance.PairOptions;

/** Deterministic mode: nothing moves until stepped; one request per step; RNR retries counted in steps. */
class DeterministicFabricTest {
    @Test
    void nothingHappensUntilTheFabricIsStepped() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            bed.serverReceive(sink, 0, 64, 1);
            bed.clientSend(source, 64, 2, SendWorkRequest.SIGNALED);
            assertNull(bed.pollOne(bed.server.completionQueue()));
            assertNull(bed.pollOne(bed.client.completionQueue()));
            assertTrue(bed.fabric.step());
            assertEquals(1, bed.pollOne(bed.server.completionQueue()).id());
            assertEquals(2, bed.pollOne(bed.client.completionQueue()).id());
            assertFalse(bed.fabric.step());
        }
    }

    @Test
    void eachStepExecutesOneRequestTakingQueuePairsRoundRobin() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion clientMemory = bed.client.register(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion serverMemory = bed.server.register(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            SendWorkRequest write = new SendWorkRequest(1);
            bed.client.queuePair().postSend(write.reset(SendOpcode.RDMA_WRITE, 10, SendWorkRequest.SIGNALED).addSge(clientMemory, 0, 8)
                    .remote(serverMemory.address(), serverMemory.rkey()));
            bed.client.queuePair().postSend(write.reset(SendOpcode.RDMA_WRITE, 11, SendWorkRequest.SIGNALED).addSge(clientMemory, 0, 8)
                    .remote(serverMemory.address(), serverMemory.rkey()));
            bed.server.queuePair().postSend(write.reset(SendOpcode.RDMA_WRITE, 20, SendWorkRequest.SIGNALED).addSge(serverMemory, 0, 8)
                    .remote(clientMemory.address(), clientMemory.rkey()));
            long[] order = new long[3];
            for (int i = 0; i < 3; i++) {
                assertTrue(bed.fabric.step());
                WorkCompletion c = bed.pollOne(bed.client.completionQueue());
                if (c == null) {
                    c = bed.pollOne(bed.server.completionQueue());
                }
                order[i] = c.id();
            }
            assertArrayEquals(new long[] {10, 20, 11}, order, "client and server queue pairs alternate; each queue keeps its order");
        }
    }

    @Test
    void rnrRetriesTakeOneStepEachAndFailOnceExhausted() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults().withRnrRetryCount(3))) {
            MemoryRegion source = bed.client.register(64, 0);
            bed.clientSend(source, 64, 1, SendWorkRequest.SIGNALED);
            for (int retry = 0; retry < 3; retry++) {
                assertTrue(bed.fabric.step());
                assertNull(bed.pollOne(bed.client.completionQueue()), "retry " + retry);
            }
            assertTrue(bed.fabric.step());
            assertEquals(CompletionStatus.RNR_RETRY_EXCEEDED, bed.pollOne(bed.client.completionQueue()).status());
        }
    }

    @Test
    void withInfiniteRnrRetryASendWaitsForTheReceive() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            bed.clientSend(source, 64, 1, SendWorkRequest.SIGNALED);
            assertEquals(0, bed.fabric.runUntilIdle());
            assertNull(bed.pollOne(bed.client.completionQueue()));
            bed.serverReceive(sink, 0, 64, 2);
            assertEquals(1, bed.fabric.runUntilIdle());
            assertEquals(CompletionStatus.SUCCESS, bed.pollOne(bed.client.completionQueue()).status());
        }
    }

    @Test
    void unsignaledSendsHoldTheirSlotsUntilALaterSignaledCompletionIsPolled() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults().withDepths(4, 16))) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64 * 16, Access.LOCAL_WRITE);
            for (int i = 0; i < 8; i++) {
                bed.serverReceive(sink, i * 64, 64, i);
            }
            for (int i = 0; i < 3; i++) {
                bed.clientSend(source, 8, i, 0);
            }
            bed.fabric.runUntilIdle();
            bed.clientSend(source, 8, 3, SendWorkRequest.SIGNALED);
            VerbsException full = assertThrows(VerbsException.class, () -> bed.clientSend(source, 8, 4, 0));
            assertEquals(Errno.ENOMEM, full.errno());
            bed.fabric.runUntilIdle();
            assertThrows(VerbsException.class, () -> bed.clientSend(source, 8, 4, 0), "executed but not yet polled");
            assertEquals(3, bed.pollOne(bed.client.completionQueue()).id());
            for (int i = 4; i < 8; i++) {
                bed.clientSend(source, 8, i, 0);
            }
        }
    }

    @Test
    void aChainFailingAtItsSecondRequestKeepsTheFirstPosted() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            MemoryRegion source = bed.client.register(64, 0);
            MemoryRegion sink = bed.server.register(64, Access.LOCAL_WRITE);
            bed.serverReceive(sink, 0, 64, 1);
            SendWorkRequest good = new SendWorkRequest(1).reset(SendOpcode.SEND, 10, SendWorkRequest.SIGNALED).addSge(source, 0, 8);
            SendWorkRequest tooManySges = new SendWorkRequest(3).reset(SendOpcode.SEND, 11, SendWorkRequest.SIGNALED).sgeCount(3);
            VerbsException refused = assertThrows(VerbsException.class, () -> bed.client.queuePair().postSend(good.next(tooManySges)));
            assertEquals(Errno.EINVAL, refused.errno());
            assertEquals(1, refused.failedIndex());
            assertEquals(1, bed.fabric.runUntilIdle());
            assertEquals(10, bed.pollOne(bed.client.completionQueue()).id());
            assertNull(bed.pollOne(bed.client.completionQueue()));
        }
    }

    @Test
    void theFabricCountsLiveResourcesAndTheReadHighWaterMark() throws Exception {
        try (LoopbackTestBed bed = LoopbackTestBed.open(PairOptions.defaults())) {
            assertEquals(2, bed.fabric.queuePairCount());
            MemoryRegion exposed = bed.client.register(4096, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion sink = bed.server.register(4096, Access.LOCAL_WRITE);
            bed.server.own(bed.server.protectionDomain().allocateFastRegistrationRegion(4096));
            assertEquals(3, bed.fabric.registrationCount());
            SendWorkRequest read = new SendWorkRequest(1);
            for (int i = 0; i < 3; i++) {
                bed.server.queuePair().postSend(read.reset(SendOpcode.RDMA_READ, i, 0).addSge(sink, 0, 64).remote(exposed.address(), exposed.rkey()));
            }
            assertTrue(bed.fabric.step());
            bed.server.queuePair().postSend(read.reset(SendOpcode.RDMA_READ, 3, SendWorkRequest.SIGNALED).addSge(sink, 0, 64)
                    .remote(exposed.address(), exposed.rkey()));
            assertEquals(3, bed.fabric.maxReadsInFlight(bed.server.queuePair()));
            bed.fabric.runUntilIdle();
            assertEquals(3, bed.pollOne(bed.server.completionQueue()).id());
            bed.pair.close();
            assertEquals(0, bed.fabric.registrationCount());
            assertEquals(0, bed.fabric.queuePairCount());
        }
    }

    @Test
    void steppingAThreadedFabricIsRefused() {
        try (LoopbackFabric fabric = LoopbackFabric.threaded()) {
            assertThrows(IllegalStateException.class, fabric::step);
            assertThrows(IllegalStateException.class, fabric::runUntilIdle);
        }
    }
}
