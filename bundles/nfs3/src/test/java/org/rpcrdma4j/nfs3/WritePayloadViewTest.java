package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.internal.Xdr3;

/**
 * A WRITE's payload is a read-only view of where the call was received (the registered receive
 * buffer or READ sink over RDMA), not a copy; what follows it decodes in place; a length the
 * call does not hold is garbage.
 */
class WritePayloadViewTest {

    /** An XDR stream over direct memory: a payload of {@code length} bytes (2, 3, ...), its padding, then 42. */
    private static Xdr received(ByteBuffer memory, int length) {
        memory.putInt(length);
        for (int i = 0; i < length; i++) {
            memory.put((byte) (i + 2));
        }
        memory.put(new byte[org.rpcrdma4j.codec.Xdr.padding(memory.position())]);
        memory.putInt(42).flip();
        Xdr xdr = new Xdr(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, memory));
        xdr.beginDecoding();
        return xdr;
    }

    @Test
    void thePayloadIsAViewOfTheReceivedMemoryAndWhatFollowsDecodes() throws IOException {
        for (int length : new int[] {0, 1, 5, 4096}) {
            ByteBuffer memory = ByteBuffer.allocateDirect(length + 16);
            Xdr xdr = received(memory, length);
            ByteBuffer[] pieces = Xdr3.decodeData(xdr, 1 << 20);
            assertEquals(1, pieces.length, "one piece of memory, one view");
            ByteBuffer data = pieces[0];
            assertEquals(length, data.remaining());
            assertEquals(0, data.position());
            assertTrue(data.isDirect(), "a view of the direct memory, not a heap copy");
            assertTrue(data.isReadOnly(), "the procedure cannot scribble on the receive buffer");
            assertThrows(ReadOnlyBufferException.class, () -> data.duplicate().put((byte) 0));
            for (int i = 0; i < length; i++) {
                assertEquals((byte) (i + 2), data.get(i));
            }
            if (length > 0) {
                memory.put(4, (byte) 99); // the received memory changes: the view sees it (no copy was taken)
                assertEquals(99, data.get(0));
            }
            assertEquals(42, xdr.xdrDecodeInt(), "past the payload and its padding");
        }
    }

    /**
     * A WRITE larger than one READ sink arrives in several pieces of memory (the inline part, then
     * one sink after another): the payload is one view per piece, not a gathered heap copy (which
     * Grizzly's toByteBuffer made of a composite range).
     */
    @Test
    void aPayloadSpanningSeveralPiecesIsOneViewPerPiece() throws IOException {
        int length = 3 * 1000 + 2; // ends 2 bytes into the last piece's padding
        ByteBuffer whole = ByteBuffer.allocate(length + 16);
        received(whole, length); // the expected bytes, laid out as on the wire
        byte[] wire = new byte[whole.limit()];
        whole.get(0, wire);
        // three direct pieces: [length word + 996 bytes], [1000 bytes], [the rest]
        int[] cuts = {0, 1000, 2000, wire.length};
        ByteBuffer[] memory = new ByteBuffer[3];
        Buffer[] parts = new Buffer[3];
        for (int i = 0; i < 3; i++) {
            memory[i] = ByteBuffer.allocateDirect(cuts[i + 1] - cuts[i]);
            memory[i].put(wire, cuts[i], cuts[i + 1] - cuts[i]).flip();
            parts[i] = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, memory[i]);
        }
        Xdr xdr = new Xdr(CompositeBuffer.newBuffer(MemoryManager.DEFAULT_MEMORY_MANAGER, parts));
        xdr.beginDecoding();
        ByteBuffer[] pieces = Xdr3.decodeData(xdr, 1 << 20);
        assertEquals(3, pieces.length, "one view per piece of memory");
        assertEquals(length, Xdr3.remaining(pieces));
        int at = 0;
        for (ByteBuffer piece : pieces) {
            assertTrue(piece.isDirect(), "a view of the direct memory, not a heap copy");
            assertTrue(piece.isReadOnly());
            assertEquals(0, piece.position());
            for (int i = 0; i < piece.remaining(); i++, at++) {
                assertEquals((byte) (at + 2), piece.get(i), "byte " + at);
            }
        }
        memory[1].put(0, (byte) 99); // the second piece changes: its view sees it (no copy was taken)
        assertEquals(99, pieces[1].get(0));
        assertEquals(42, xdr.xdrDecodeInt(), "past the payload and its padding, the pieces' bounds restored");
    }

    @Test
    void aLengthTheCallDoesNotHoldIsGarbageNotAnOverread() {
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        memory.putInt(40).put(new byte[8]).flip();
        Xdr xdr = new Xdr(Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, memory));
        xdr.beginDecoding();
        IOException e = assertThrows(IOException.class, () -> Xdr3.decodeData(xdr, 1 << 20));
        assertTrue(e.getMessage().contains("40 bytes"), e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    @Test
    void moreThanTheLimitIsGarbage() {
        ByteBuffer memory = ByteBuffer.allocateDirect(16);
        Xdr xdr = received(memory, 8);
        assertThrows(IOException.class, () -> Xdr3.decodeData(xdr, 4));
    }
}
