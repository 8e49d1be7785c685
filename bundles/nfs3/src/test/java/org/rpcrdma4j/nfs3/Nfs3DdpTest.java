package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.binding.nfs.NfsUpperLayerBinding;
import org.rpcrdma4j.nfs3.support.NfsReply;
import org.rpcrdma4j.nfs3.support.ServerTestBase;

/**
 * The NFS upper-layer binding (RFC 8267, bundle org.rpcrdma4j.binding.nfs) against real replies
 * of this server: where the data of READ and the path of READLINK lie, and no item in failures,
 * truncated or lying results.
 */
class Nfs3DdpTest extends ServerTestBase {
    /** status, post_op_attr (bool and fattr3): where READLINK's path and READ's count start. */
    private static final int STATUS_AND_ATTRIBUTES = 4 + 4 + 84;

    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();

    @Test
    void theBindingIsForThisProgramAndOnlyReadAndReadlinkRepliesAreEligible() {
        assertEquals(Nfs3.PROGRAM, binding.program());
        for (int procedure = 0; procedure < Nfs3.procedureCount(); procedure++) {
            boolean reply = procedure == Nfs3.NFSPROC3_READ || procedure == Nfs3.NFSPROC3_READLINK;
            assertEquals(reply, binding.isDdpEligibleReply(Nfs3.VERSION, procedure), Nfs3.procedureName(procedure));
        }
    }

    @Test
    void theItemOfARealReadReplyIsLocated() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        client.write(file, 0, "0123456789".getBytes(), Nfs3.FILE_SYNC);
        byte[] reply = client.read(file, 2, 5).bytes();
        ByteBuffer result = ByteBuffer.allocate(reply.length + 8).position(8).put(reply).position(8);
        int offset = binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, result);
        assertEquals(STATUS_AND_ATTRIBUTES + 4 + 4, offset, "status, post_op_attr, count, eof");
        assertEquals(5, result.getInt(8 + offset));
        assertEquals("23456", new String(reply, offset + 4, 5));
        assertEquals(8, result.position(), "the buffer is not moved");
    }

    @Test
    void anEmptyReadAtEndOfFileHasAZeroLengthItem() throws IOException {
        byte[] file = client.create(root, "short", 0644);
        client.write(file, 0, "abc".getBytes(), Nfs3.FILE_SYNC);
        byte[] reply = client.read(file, 3, 100).bytes();
        int offset = binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, ByteBuffer.wrap(reply));
        assertEquals(STATUS_AND_ATTRIBUTES + 4 + 4, offset);
        assertEquals(0, ByteBuffer.wrap(reply).getInt(offset));
        assertEquals(1, ByteBuffer.wrap(reply).getInt(offset - 4), "eof");
    }

    @Test
    void theItemOfARealReadlinkReplyIsLocated() throws IOException {
        Files.createSymbolicLink(exportDir.resolve("l"), Path.of("target"));
        byte[] reply = readlink(client.lookup(root, "l")).bytes();
        int offset = binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READLINK, ByteBuffer.wrap(reply));
        assertEquals(STATUS_AND_ATTRIBUTES, offset);
        assertEquals("target", new String(reply, offset + 4, 6));
    }

    @Test
    void realFailuresHaveNoItem() throws IOException {
        byte[] file = client.create(root, "plain", 0644);
        NfsReply notALink = readlink(file);
        assertStatus(Nfs3.NFS3ERR_INVAL, notALink.status(), "READLINK of a regular file");
        assertEquals(-1, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READLINK, ByteBuffer.wrap(notALink.bytes())));

        Files.delete(exportDir.resolve("plain"));
        NfsReply gone = client.read(file, 0, 10);
        assertNotEquals(Nfs3.NFS3_OK, gone.status(), "READ of a removed file");
        assertEquals(-1, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, ByteBuffer.wrap(gone.bytes())));
    }

    @Test
    void aTruncatedRealReplyHasNoItemUntilTheDataIsWhole() throws IOException {
        byte[] file = client.create(root, "t", 0644);
        client.write(file, 0, "0123456".getBytes(), Nfs3.FILE_SYNC);
        byte[] reply = client.read(file, 0, 7).bytes();
        int offset = binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, ByteBuffer.wrap(reply));
        assertEquals(STATUS_AND_ATTRIBUTES + 4 + 4, offset);
        for (int length = 0; length < reply.length; length++) {
            int expected = length >= offset + 4 + 7 ? offset : -1; // the XDR round-up is not needed
            assertEquals(expected, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ,
                    ByteBuffer.wrap(reply, 0, length).slice()), "truncated to " + length);
        }
    }

    @Test
    void aRealReplyWithALyingLengthHasNoItem() throws IOException {
        byte[] file = client.create(root, "lying", 0644);
        client.write(file, 0, "0123456789".getBytes(), Nfs3.FILE_SYNC);
        ByteBuffer result = ByteBuffer.wrap(client.read(file, 0, 10).bytes());
        int offset = binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, result);
        assertEquals(10, result.getInt(offset));
        result.putInt(offset, 1000);
        assertEquals(-1, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, result), "length beyond the buffer");
        result.putInt(offset, -10);
        assertEquals(-1, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_READ, result), "negative length");
    }

    @Test
    void aRealReplyOfAnotherProcedureHasNoItem() throws IOException {
        byte[] file = client.create(root, "g", 0644);
        byte[] getattr = client.nfs(Nfs3.NFSPROC3_GETATTR, out -> out.xdrEncodeDynamicOpaque(file)).bytes();
        assertEquals(-1, binding.locateReplyItem(Nfs3.VERSION, Nfs3.NFSPROC3_GETATTR, ByteBuffer.wrap(getattr)));
    }

    private NfsReply readlink(byte[] handle) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_READLINK, out -> out.xdrEncodeDynamicOpaque(handle));
    }
}
