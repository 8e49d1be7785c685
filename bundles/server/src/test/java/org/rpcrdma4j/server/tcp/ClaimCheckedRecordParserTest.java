package org.rpcrdma4j.server.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.server.ClaimCheckedXdr;

/**
 * ClaimCheckedRecordParserTest - the TCP record parser that makes each message a claim-checked
 * stream (issue #33: no second stream object per call): records of one and of several
 * fragments, a record not yet whole, what follows a record, and the header check keeping the
 * parser's stream instead of wrapping it again.
 */
class ClaimCheckedRecordParserTest {
    @SuppressWarnings("unchecked")
    private static final MemoryManager<Buffer> MEMORY = MemoryManager.DEFAULT_MEMORY_MANAGER;

    private static Buffer stream(byte[]... fragmentsThenTail) {
        int size = 0;
        for (byte[] f : fragmentsThenTail) {
            size += f.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        for (byte[] f : fragmentsThenTail) {
            b.put(f);
        }
        return Buffers.wrap(MEMORY, b.array());
    }

    private static byte[] fragment(boolean last, int... words) {
        ByteBuffer b = ByteBuffer.allocate(Integer.BYTES * (1 + words.length));
        b.putInt((last ? 0x8000_0000 : 0) | Integer.BYTES * words.length);
        for (int w : words) {
            b.putInt(w);
        }
        return b.array();
    }

    private static int[] words(Xdr xdr, int n) throws Exception {
        xdr.beginDecoding();
        int[] got = new int[n];
        for (int i = 0; i < n; i++) {
            got[i] = xdr.xdrDecodeInt();
        }
        return got;
    }

    @Test
    void aRecordOfOneFragmentIsItsBytesAndThePositionMovesPastIt() throws Exception {
        Buffer s = stream(fragment(true, 1, 2, 3), fragment(true, 9));
        assertTrue(ClaimCheckedRecordParser.holdsWholeRecord(s));
        ClaimCheckedXdr xdr = ClaimCheckedRecordParser.takeRecord(s, MEMORY);
        assertEquals(16, s.position(), "past the first record, the second's header next");
        assertArrayEquals(new int[] {1, 2, 3}, words(xdr, 3));
        assertEquals(0, xdr.asBuffer().remaining(), "the record holds its 12 bytes only, the next record not");
    }

    @Test
    void aRecordOfSeveralFragmentsIsTheirBytesInOrder() throws Exception {
        Buffer s = stream(fragment(false, 1), fragment(false), fragment(false, 2, 3), fragment(true, 4));
        assertTrue(ClaimCheckedRecordParser.holdsWholeRecord(s));
        ClaimCheckedXdr xdr = ClaimCheckedRecordParser.takeRecord(s, MEMORY);
        assertFalse(s.hasRemaining());
        assertArrayEquals(new int[] {1, 2, 3, 4}, words(xdr, 4));
    }

    @Test
    void aRecordIsNotWholeUntilItsLastFragmentHasArrived() {
        byte[] first = fragment(false, 1, 2);
        byte[] last = fragment(true, 3, 4);
        assertFalse(ClaimCheckedRecordParser.holdsWholeRecord(stream(first)), "no last fragment yet");
        assertFalse(ClaimCheckedRecordParser.holdsWholeRecord(stream(first, new byte[] {(byte) 0x80, 0})),
                "half a header");
        byte[] partOfLast = java.util.Arrays.copyOf(last, last.length - 1);
        assertFalse(ClaimCheckedRecordParser.holdsWholeRecord(stream(first, partOfLast)), "a byte short");
        assertTrue(ClaimCheckedRecordParser.holdsWholeRecord(stream(first, last)));
    }

    @Test
    void theHeaderCheckKeepsTheParsersStreamAndWrapsAnyOther() {
        Buffer s = stream(fragment(true, 1));
        ClaimCheckedXdr parsed = ClaimCheckedRecordParser.takeRecord(s, MEMORY);
        assertSame(parsed, RpcHeaderCheckFilter.claimChecked(parsed, parsed.asBuffer(), MEMORY),
                "no second stream for the parser's");
        Buffer bytes = Buffers.wrap(MEMORY, new byte[] {0, 0, 0, 1});
        Xdr plain = new Xdr(bytes, MEMORY);
        assertTrue(RpcHeaderCheckFilter.claimChecked(plain, bytes, MEMORY) instanceof ClaimCheckedXdr,
                "oncrpc4j's plain stream is wrapped");
    }
}
