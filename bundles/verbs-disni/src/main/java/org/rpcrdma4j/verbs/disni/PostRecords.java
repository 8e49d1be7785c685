package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.util.MemoryUtils;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rpcrdma4j.disni.ext.DisniExtensions;
import org.rpcrdma4j.verbs.ScatterGatherElement;

/**
 * The staging area a poster writes work-request records into before libdisni translates them
 * into libibverbs' work requests: a direct buffer in native order, of {@code slots} slots, each a
 * record followed by its scatter/gather array (what libdisni reads through the absolute
 * addresses the records carry). Owned by one poster, reused for every post; its memory is the
 * JVM's and goes with the buffer.
 */
final class PostRecords {
    /** Offsets in a send and in a receive record alike: wr_id u64 at 0, then these. */
    static final int RECORD_NEXT = 8;
    static final int RECORD_SG_LIST = 16;
    static final int RECORD_NUM_SGE = 24;

    private final ByteBuffer buffer;
    private final long address;
    private final int stride;
    private final int recordBytes;

    /**
     * @param slots requests per post
     * @param recordBytes bytes of one record (send or receive layout)
     * @param maxSge most SGEs per request (the queue pair's limit)
     */
    PostRecords(int slots, int recordBytes, int maxSge) {
        this.recordBytes = recordBytes;
        this.stride = recordBytes + Math.max(1, maxSge) * DisniExtensions.SGE_BYTES;
        // every field is 4- or 8-byte sized and every record and SGE a multiple of 8 long
        this.buffer = ByteBuffer.allocateDirect(slots * stride + Long.BYTES).alignedSlice(Long.BYTES).order(ByteOrder.nativeOrder());
        this.address = MemoryUtils.getAddress(buffer);
    }

    ByteBuffer buffer() {
        return buffer;
    }

    int recordOffset(int slot) {
        return slot * stride;
    }

    long recordAddress(int slot) {
        return address + recordOffset(slot);
    }

    int sgeOffset(int slot) {
        return slot * stride + recordBytes;
    }

    long sgeAddress(int slot) {
        return address + sgeOffset(slot);
    }

    /** Writes SGE i of the slot's request (struct ibv_sge: addr u64, length u32, lkey u32). */
    void putSge(int slot, int i, ScatterGatherElement element) {
        int at = sgeOffset(slot) + i * DisniExtensions.SGE_BYTES;
        buffer.putLong(at, element.address());
        buffer.putInt(at + 8, element.length());
        buffer.putInt(at + 12, element.lkey());
    }

    /**
     * Writes the fields a send and a receive record share into the slot: the id, the end of the
     * chain (until the next slot links in), the slot's SGE array and its count. The caller then
     * writes the SGEs ({@link #putSge}) and links the slot ({@link #link}).
     */
    void writeHead(int slot, long id, int sges) {
        int at = recordOffset(slot);
        buffer.putLong(at, id);
        buffer.putLong(at + RECORD_NEXT, 0L);
        buffer.putLong(at + RECORD_SG_LIST, sgeAddress(slot));
        buffer.putInt(at + RECORD_NUM_SGE, sges);
    }

    /**
     * Links the previous slot's record to this one; slot 0 starts the chain. A record is written
     * with next = 0, so the latest ends the chain.
     */
    void link(int slot) {
        if (slot > 0) {
            buffer.putLong(recordOffset(slot - 1) + RECORD_NEXT, recordAddress(slot));
        }
    }
}
