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
     * Links the previous slot's record to this one (nextOffset: where a record keeps "next");
     * slot 0 starts the chain. A record is written with next = 0, so the latest ends the chain.
     */
    void link(int slot, int nextOffset) {
        if (slot > 0) {
            buffer.putLong(recordOffset(slot - 1) + nextOffset, recordAddress(slot));
        }
    }
}
