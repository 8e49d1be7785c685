package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.CompletionOpcode;
import org.rpcrdma4j.verbs.CompletionStatus;
import org.rpcrdma4j.verbs.WorkCompletion;

/**
 * Completions are read from the struct ibv_wc records libdisni hands DiSNI (48 bytes each, native
 * order): every field at its offset, the queue pair number also for errors (which DiSNI's own
 * IbvWC leaves stale), and the invalidated key only when IBV_WC_WITH_INV is set.
 */
class CompletionRecordsTest {
    private static final int WC = 48;

    private static void record(ByteBuffer b, int base, long wrId, int status, int opcode, int vendorErr, int byteLen, int immOrInv,
            int qpNum, int flags) {
        b.putLong(base, wrId);
        b.putInt(base + 8, status);
        b.putInt(base + 12, opcode);
        b.putInt(base + 16, vendorErr);
        b.putInt(base + 20, byteLen);
        b.putInt(base + 24, immOrInv);
        b.putInt(base + 28, qpNum);
        b.putInt(base + 32, 0); // src_qp
        b.putInt(base + 36, flags);
    }

    @Test
    void recordsAreReadFieldByField() {
        ByteBuffer b = ByteBuffer.allocateDirect(3 * WC).order(ByteOrder.nativeOrder());
        record(b, 0, 7, 0, 128, 0, 1024, 0x1234, 0x11, 1 << 3);       // RECV that invalidated 0x1234
        record(b, WC, 8, 5, 0, 0x99, 0, 0, 0x22, 0);                  // flushed SEND
        record(b, 2 * WC, 9, 0, 2, 0, 4096, 0x5678, 0x33, 1 << 1);    // READ, WITH_IMM flag only

        WorkCompletion c = new WorkCompletion();
        DisniCompletionQueue.fill(c, b, 0);
        assertEquals(7, c.id());
        assertEquals(CompletionStatus.SUCCESS, c.status());
        assertEquals(CompletionOpcode.RECV, c.opcode());
        assertEquals(1024, c.byteCount());
        assertEquals(0x11, c.queuePairNumber());
        assertTrue(c.hasInvalidatedKey());
        assertEquals(0x1234, c.invalidatedKey());

        DisniCompletionQueue.fill(c, b, WC);
        assertEquals(8, c.id());
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSHED, c.status());
        assertEquals(0x22, c.queuePairNumber(), "the queue pair of an error completion");
        assertEquals(0x99, c.vendorError());
        assertFalse(c.hasInvalidatedKey());

        DisniCompletionQueue.fill(c, b, 2 * WC);
        assertEquals(CompletionOpcode.RDMA_READ, c.opcode());
        assertEquals(4096, c.byteCount());
        assertFalse(c.hasInvalidatedKey(), "immediate data is not an invalidated key");
        assertEquals(0, c.vendorError());
    }
}
