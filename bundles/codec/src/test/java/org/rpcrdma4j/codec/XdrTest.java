package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** XdrTest - the XDR unit arithmetic and reading an int across a message's views. */
class XdrTest {

    @Test
    void anIntIsReadAcrossViewsFromEachViewsPosition() {
        ByteBuffer first = ByteBuffer.wrap(new byte[] {9, 9, 0x01, 0x02, 0x03});
        first.position(2); // the message starts at index 2 of this view
        ByteBuffer second = ByteBuffer.wrap(new byte[] {0x04, 0x05, 0x06, 0x07, (byte) 0x88});
        List<ByteBuffer> views = List.of(first, second);
        assertEquals(0x01020304, Xdr.intAt(views, 0), "three bytes in the first view, one in the second");
        assertEquals(0x05060788, Xdr.intAt(views, 4), "wholly in the second view");
        assertEquals(2, first.position(), "nothing moved");
        assertEquals(0, second.position(), "nothing moved");
    }

    @Test
    void anIntWhollyInTheFirstViewIsReadFromItsPositionBigEndianWhateverTheViewsOrder() {
        byte[] bytes = {9, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88, 9};
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            ByteBuffer first = ByteBuffer.wrap(bytes).position(1).limit(9).slice().order(order);
            first.position(0);
            ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).position(1).limit(9);
            direct.order(order);
            for (ByteBuffer view : List.of(first, direct)) {
                List<ByteBuffer> views = List.of(view, ByteBuffer.wrap(new byte[] {0x01, 0x02, 0x03, 0x04}));
                assertEquals(0x11223344, Xdr.intAt(views, 0), order + ", first word");
                assertEquals(0x55667788, Xdr.intAt(views, 4), order + ", last whole word before the limit");
                assertEquals(0x66778801, Xdr.intAt(views, 5), order + ", straddling the limit into the next view");
                assertEquals(0x01020304, Xdr.intAt(views, 8), order + ", wholly in the next view");
            }
        }
    }

    @Test
    void unitArithmetic() {
        assertEquals(8, Xdr.roundUp(5));
        assertEquals(3, Xdr.padding(5));
        assertEquals(12, Xdr.wordsToBytes(3));
    }
}
