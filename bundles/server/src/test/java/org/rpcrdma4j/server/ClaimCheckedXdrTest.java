package org.rpcrdma4j.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What a peer claims for a variable-length item is checked against the message before
 * anything is allocated; sound items decode exactly as oncrpc4j's own {@link Xdr} decodes them.
 */
class ClaimCheckedXdrTest {

    private static ClaimCheckedXdr decoding(int... words) {
        ByteBuffer b = ByteBuffer.allocate(4 * words.length);
        for (int w : words) {
            b.putInt(w);
        }
        ClaimCheckedXdr xdr = new ClaimCheckedXdr(b.array());
        xdr.beginDecoding();
        return xdr;
    }

    private static void assertRefused(Executable decode) {
        BadXdrOncRpcException refused = assertThrows(BadXdrOncRpcException.class, decode);
        assertTrue(refused.getMessage().contains("claims"), refused.getMessage());
    }

    @Test
    void everyVariableLengthItemClaimingMoreThanTheMessageHoldsIsRefused() {
        int huge = 0x7fff_fffc;
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeDynamicOpaque());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeString());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeByteVector());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeIntVector());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeLongVector());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeShortVector());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeFloatVector());
        assertRefused(() -> decoding(huge, 1, 2).xdrDecodeDoubleVector());
        assertRefused(() -> decoding(1, 2).xdrDecodeOpaque(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeByteFixedVector(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeIntFixedVector(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeLongFixedVector(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeShortFixedVector(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeFloatFixedVector(huge));
        assertRefused(() -> decoding(1, 2).xdrDecodeDoubleFixedVector(huge));
        // the largest int: its padded length passes 2^31
        assertRefused(() -> decoding(Integer.MAX_VALUE, 1, 2).xdrDecodeDynamicOpaque());
        assertRefused(() -> decoding(Integer.MAX_VALUE, 1, 2).xdrDecodeString());
        assertRefused(() -> decoding(1, 2).xdrDecodeOpaque(Integer.MAX_VALUE));
        // one byte too many: 5 bytes claimed (8 with padding), 4 held
        assertRefused(() -> decoding(5, 0x61626364).xdrDecodeDynamicOpaque());
        // two longs claimed, one held
        assertRefused(() -> decoding(2, 0, 7).xdrDecodeLongVector());
    }

    @Test
    void soundItemsDecodeAsOncrpc4jDecodesThem() throws Exception {
        byte[] text = "names are bytes".getBytes(StandardCharsets.UTF_8);
        Xdr encoded = new Xdr(256);
        encoded.beginEncoding();
        encoded.xdrEncodeDynamicOpaque(text);
        encoded.xdrEncodeString("ü/ß");
        encoded.xdrEncodeIntVector(new int[] {1, -2, 3});
        encoded.xdrEncodeLongVector(new long[] {Long.MIN_VALUE, 5});
        encoded.xdrEncodeOpaque(new byte[] {9, 8, 7}, 3);
        encoded.xdrEncodeDynamicOpaque(new byte[0]);
        encoded.endEncoding();
        ByteBuffer bytes = encoded.asBuffer().toByteBuffer();
        byte[] message = new byte[bytes.remaining()];
        bytes.get(message);

        ClaimCheckedXdr checked = new ClaimCheckedXdr(message);
        checked.beginDecoding();
        assertArrayEquals(text, checked.xdrDecodeDynamicOpaque());
        assertEquals("ü/ß", checked.xdrDecodeString());
        assertArrayEquals(new int[] {1, -2, 3}, checked.xdrDecodeIntVector());
        assertArrayEquals(new long[] {Long.MIN_VALUE, 5}, checked.xdrDecodeLongVector());
        assertArrayEquals(new byte[] {9, 8, 7}, checked.xdrDecodeOpaque(3));
        assertArrayEquals(new byte[0], checked.xdrDecodeDynamicOpaque());
        assertTrue(!checked.hasMoreData(), "every byte decoded");
    }

    /**
     * The point of the check: a 12-byte message claiming a 256 MiB opaque costs no 256 MiB.
     * oncrpc4j's own Xdr allocates the claimed length first (and only then finds the bytes
     * missing), which this test shows for contrast.
     */
    @Test
    void aRefusedClaimAllocatesNothingOfItsSize() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        int claim = 256 << 20;

        long before = threads.getThreadAllocatedBytes(thread);
        assertThrows(BadXdrOncRpcException.class, () -> decoding(claim, 1, 2).xdrDecodeDynamicOpaque());
        long checkedCost = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(checkedCost < claim / 16, "the checked stream allocated " + checkedCost + " bytes");

        Xdr unchecked = new Xdr(ByteBuffer.allocate(12).putInt(claim).putInt(1).putInt(2).array());
        unchecked.beginDecoding();
        before = threads.getThreadAllocatedBytes(thread);
        try {
            unchecked.xdrDecodeDynamicOpaque();
        } catch (BadXdrOncRpcException | RuntimeException | OutOfMemoryError expected) {
            // oncrpc4j finds the bytes missing only after allocating the claim
        }
        long uncheckedCost = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(uncheckedCost >= claim, "oncrpc4j's own Xdr allocated " + uncheckedCost + " bytes (the contrast)");
    }
}
