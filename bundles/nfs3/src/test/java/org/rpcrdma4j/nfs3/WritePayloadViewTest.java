package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.internal.Xdr3;

/**
 * A WRITE's payload is a read-only view of where the call was received (the registered receive
 * buffer or READ sink over RDMA), not a copy; what follows it decodes as before; a length the
 * call does not hold is garbage.
 */
class WritePayloadViewTest {

    /** An XDR stream over direct memory: a payload of {@code length} bytes (2, 3, ...), its padding, then 42. */
    private static Xdr received(ByteBuffer memory, int length) {
        memory.putInt(length);
        for (int i = 0; i < length; i++) {
            memory.put((byte) (i + 2));
        }
        while ((memory.position() & 3) != 0) {
            memory.put((byte) 0);
        }
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
            ByteBuffer data = Xdr3.decodeData(xdr, 1 << 20);
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
