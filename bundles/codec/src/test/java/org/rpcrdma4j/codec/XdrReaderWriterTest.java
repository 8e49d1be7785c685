package org.rpcrdma4j.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** XDR primitives: big-endian units, hypers, opaque data with padding, in place. */
class XdrReaderWriterTest {

    @Test
    void roundUpAndPadding() {
        assertEquals(0, Xdr.roundUp(0));
        assertEquals(4, Xdr.roundUp(1));
        assertEquals(4, Xdr.roundUp(4));
        assertEquals(8, Xdr.roundUp(5));
        assertEquals(0x1_0000_0000L, Xdr.roundUp(0xFFFF_FFFDL));
        assertEquals(3, Xdr.padding(1));
        assertEquals(0, Xdr.padding(8));
        assertTrue(Xdr.isAligned(12));
        assertFalse(Xdr.isAligned(14));
    }

    @Test
    void writesBigEndianWhateverTheBufferOrder() {
        ByteBuffer buffer = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        XdrWriter writer = new XdrWriter().wrap(buffer, 4, 20);
        writer.writeInt(0x01020304).writeHyper(0x1122334455667788L)
                .writeOpaque(ByteBuffer.wrap(new byte[] {(byte) 0xaa, (byte) 0xbb, (byte) 0xcc, (byte) 0xdd, (byte) 0xee}));

        assertEquals(20, writer.length());
        assertEquals(24, writer.position());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88,
            (byte) 0xaa, (byte) 0xbb, (byte) 0xcc, (byte) 0xdd, (byte) 0xee, 0, 0, 0}, Arrays.copyOf(buffer.array(), 24));
        assertEquals(0, buffer.position());
        assertThrows(BufferOverflowException.class, () -> writer.writeInt(1));
    }

    @Test
    void readsInPlaceWithoutMovingTheBuffer() {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        new XdrWriter().wrap(buffer, 8, 56).writeInt(-2).writeHyper(-3L)
                .writeVariableOpaque(ByteBuffer.wrap("hello".getBytes())).writeInt(42);
        buffer.order(ByteOrder.LITTLE_ENDIAN);

        XdrReader reader = new XdrReader().wrap(buffer, 8, 32);
        assertEquals(-2, reader.readInt());
        assertEquals(-3L, reader.readHyper());
        ByteBuffer opaque = reader.readVariableOpaque(16);
        assertEquals(5, opaque.remaining());
        assertEquals('h', opaque.get(0));
        assertEquals(32, reader.position());
        assertEquals(42, reader.peekInt(0));
        assertEquals(8, reader.remaining());
        assertEquals(42L, reader.readUnsignedInt());
        assertEquals(0, buffer.position());

        opaque.put(0, (byte) 'j');
        assertEquals('j', buffer.get(24), "the slice shares the buffer: no copy");
    }

    @Test
    void skipOpaqueGivesTheDataIndex() {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        XdrReader reader = new XdrReader().wrap(buffer, 0, 16);
        assertEquals(0, reader.skipOpaque(5));
        assertEquals(8, reader.position());
        assertThrows(BufferUnderflowException.class, () -> reader.skipOpaque(9));
        assertEquals(8, reader.position());
    }

    @Test
    void readsPastTheLimitAreRefused() {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        XdrReader reader = new XdrReader().wrap(buffer, 0, 6);
        assertTrue(reader.hasWords(1));
        assertFalse(reader.hasWords(2));
        assertFalse(reader.hasWords(-1));
        assertFalse(reader.hasWords(Long.MAX_VALUE));
        reader.readInt();
        assertThrows(BufferUnderflowException.class, reader::readInt);
        assertThrows(BufferUnderflowException.class, reader::readHyper);
        assertThrows(BufferUnderflowException.class, () -> reader.skipWords(1));
        assertThrows(IndexOutOfBoundsException.class, () -> reader.position(7));
        assertThrows(IndexOutOfBoundsException.class, () -> new XdrReader().wrap(buffer, 8, 9));
    }

    @Test
    void variableOpaqueLongerThanItsBoundIsRefused() {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        new XdrWriter().wrap(buffer, 0, 16).writeInt(8);
        XdrReader reader = new XdrReader().wrap(buffer, 0, 16);
        assertThrows(BufferUnderflowException.class, () -> reader.readVariableOpaque(4));
        assertEquals(0, reader.position());
        new XdrWriter().wrap(buffer, 0, 16).writeInt(-1);
        assertThrows(BufferUnderflowException.class, () -> reader.readVariableOpaque(Integer.MAX_VALUE));
    }
}
