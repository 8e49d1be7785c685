package org.rpcrdma4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The value types of the contract: flags, statuses, capabilities, reusable requests and completions. */
class ContractTypesTest {
    @Test
    void accessFlagsFollowTheVerbsRules() {
        assertTrue(Access.isValid(0));
        assertTrue(Access.isValid(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ));
        assertFalse(Access.isValid(Access.REMOTE_WRITE), "REMOTE_WRITE needs LOCAL_WRITE");
        assertFalse(Access.isValid(64));
        assertEquals("LOCAL_WRITE|REMOTE_READ", Access.toString(Access.LOCAL_WRITE | Access.REMOTE_READ));
        assertEquals("LOCAL_READ", Access.toString(0));
        assertEquals("REMOTE_READ|0x40", Access.toString(Access.REMOTE_READ | 64));
    }

    @Test
    void completionStatusesCarryTheIbvValues() {
        for (CompletionStatus status : CompletionStatus.values()) {
            assertEquals(status, CompletionStatus.fromCode(status.code()));
        }
        assertEquals(5, CompletionStatus.WORK_REQUEST_FLUSHED.code());
        assertEquals(13, CompletionStatus.RNR_RETRY_EXCEEDED.code());
        assertEquals(CompletionStatus.GENERAL_ERROR, CompletionStatus.fromCode(3));
        assertEquals(CompletionStatus.GENERAL_ERROR, CompletionStatus.fromCode(-1));
        assertEquals(CompletionStatus.GENERAL_ERROR, CompletionStatus.fromCode(99));
    }

    @Test
    void completionOpcodesCollapseAsIbvDoes() {
        assertEquals(CompletionOpcode.SEND, CompletionOpcode.of(SendOpcode.SEND_WITH_INV));
        assertEquals(CompletionOpcode.RDMA_READ, CompletionOpcode.of(SendOpcode.RDMA_READ_WITH_INV));
        assertEquals(CompletionOpcode.REG_MR, CompletionOpcode.of(SendOpcode.REG_MR));
    }

    @Test
    void capabilitiesRejectImpossibleValues() {
        assertThrows(IllegalArgumentException.class, () -> new DeviceCapabilities(TransportType.ROCE, 0, 1, 1, 0, 16, 16, 1, 1, false, false, 0));
        assertThrows(IllegalArgumentException.class, () -> new DeviceCapabilities(TransportType.ROCE, 1, 1, 1, 0, 16, 16, 1, 1, true, false, 0));
        assertThrows(IllegalArgumentException.class, () -> new DeviceCapabilities(TransportType.ROCE, 1, 1, 1, -1, 16, 16, 1, 1, false, false, 0));
        assertTrue(TransportType.IWARP.readSinkRequiresRemoteWrite());
        assertFalse(TransportType.ROCE.readSinkRequiresRemoteWrite());
    }

    @Test
    void verbsExceptionNamesErrnoAndFailedIndex() {
        VerbsException e = new VerbsException("post send", Errno.ENOMEM, 3);
        assertEquals(Errno.ENOMEM, e.errno());
        assertEquals(3, e.failedIndex());
        assertEquals("post send (ENOMEM, at work request 3)", e.getMessage());
        assertEquals(-1, new VerbsException("x", Errno.EBUSY).failedIndex());
        assertEquals("errno 4242", Errno.toString(4242));
    }

    @Test
    void sendWorkRequestResetsForReuseAndBoundsItsSges() {
        SendWorkRequest request = new SendWorkRequest(1).reset(SendOpcode.RDMA_READ, 7, SendWorkRequest.SIGNALED).remote(0x1000, 5).invalidateKey(9);
        request.sge(0).set(0x2000, 10, 3);
        request.sgeCount(1);
        assertThrows(IllegalStateException.class, () -> request.addSge(region(64), 0, 1));
        assertThrows(IllegalArgumentException.class, () -> request.sgeCount(2));
        request.reset(SendOpcode.SEND, 8, 0);
        assertEquals(0, request.sgeCount());
        assertEquals(0, request.remoteAddress());
        assertEquals(0, request.invalidateKey());
        assertFalse(request.isSignaled());
        assertNull(request.registrationRegion());
    }

    @Test
    void anSgeOutsideItsRegionIsRefused() {
        ScatterGatherElement sge = new ScatterGatherElement();
        assertThrows(IndexOutOfBoundsException.class, () -> sge.set(region(64), 60, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> sge.set(region(64), -1, 1));
        sge.set(region(64), 60, 4);
        assertEquals(0x10000 + 60, sge.address());
        assertEquals(0x77, sge.lkey());
    }

    @Test
    void queuePairAttributesRejectBadSettingsNamingThem() {
        assertThrows(NullPointerException.class, () -> QueuePairAttributes.builder(null, null));
        CompletionQueue cq = completionQueue();
        IllegalArgumentException depth = assertThrows(IllegalArgumentException.class, () -> QueuePairAttributes.builder(cq, cq).sendQueueDepth(0));
        assertTrue(depth.getMessage().startsWith("sendQueueDepth"), depth.getMessage());
        IllegalArgumentException rnr = assertThrows(IllegalArgumentException.class, () -> QueuePairAttributes.builder(cq, cq).rnrRetryCount(8));
        assertTrue(rnr.getMessage().startsWith("rnrRetryCount"), rnr.getMessage());
        QueuePairAttributes defaults = QueuePairAttributes.builder(cq, cq).build();
        assertEquals(QueuePairAttributes.RNR_RETRY_INFINITE, defaults.rnrRetryCount());
        assertEquals(16, defaults.sendQueueDepth());
    }

    @Test
    void workCompletionSetClearsAnEarlierInvalidation() {
        WorkCompletion completion = new WorkCompletion().set(1, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 10, 2).invalidated(0x1234);
        assertTrue(completion.hasInvalidatedKey());
        completion.set(2, CompletionStatus.WORK_REQUEST_FLUSHED, CompletionOpcode.RECV, 0, 2);
        assertFalse(completion.hasInvalidatedKey());
        assertFalse(completion.isSuccess());
    }

    /** A completion queue stub: only its identity matters to the builder. */
    private static CompletionQueue completionQueue() {
        return new CompletionQueue() {
            @Override
            public VerbsDevice device() {
                return null;
            }

            @Override
            public int capacity() {
                return 1;
            }

            @Override
            public int poll(WorkCompletion[] completions, int max) {
                return 0;
            }

            @Override
            public void requestNotification() {
            }

            @Override
            public boolean awaitNotification(long timeout, TimeUnit unit) {
                return false;
            }

            @Override
            public void close() {
            }
        };
    }

    /** A region stub with a fixed address and key, for the value types only. */
    private static MemoryRegion region(int length) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(length);
        return new MemoryRegion() {
            @Override
            public ProtectionDomain protectionDomain() {
                return null;
            }

            @Override
            public ByteBuffer buffer() {
                return buffer;
            }

            @Override
            public long address() {
                return 0x10000;
            }

            @Override
            public int length() {
                return length;
            }

            @Override
            public int access() {
                return 0;
            }

            @Override
            public int lkey() {
                return 0x77;
            }

            @Override
            public int rkey() {
                return 0x77;
            }

            @Override
            public void deregister() {
            }
        };
    }
}
