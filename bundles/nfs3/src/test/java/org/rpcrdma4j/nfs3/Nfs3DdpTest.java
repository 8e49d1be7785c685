package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.ServerTestBase;

/** The RFC 8267 facts: which calls carry DDP items, and where a reply's item lies. */
class Nfs3DdpTest extends ServerTestBase {

    @Test
    void readAndReadlinkRepliesAndWriteAndSymlinkCallsAreEligible() {
        for (int procedure = 0; procedure < Nfs3.procedureCount(); procedure++) {
            boolean reply = procedure == Nfs3.NFSPROC3_READ || procedure == Nfs3.NFSPROC3_READLINK;
            boolean call = procedure == Nfs3.NFSPROC3_WRITE || procedure == Nfs3.NFSPROC3_SYMLINK;
            assertEquals(reply, Nfs3Ddp.isDdpEligibleReply(Nfs3.PROGRAM, Nfs3.VERSION, procedure),
                    Nfs3.procedureName(procedure));
            assertEquals(call, Nfs3Ddp.isDdpEligibleCall(Nfs3.PROGRAM, Nfs3.VERSION, procedure),
                    Nfs3.procedureName(procedure));
        }
        assertFalse(Nfs3Ddp.isDdpEligibleReply(Nfs3.PROGRAM, 4, Nfs3.NFSPROC3_READ), "NFSv4 has its own binding");
        assertFalse(Nfs3Ddp.isDdpEligibleReply(Mount3.PROGRAM, Mount3.VERSION, Nfs3.NFSPROC3_READ));
    }

    @Test
    void theItemOfARealReadReplyIsLocated() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        client.write(file, 0, "0123456789".getBytes(), Nfs3.FILE_SYNC);
        byte[] reply = client.read(file, 2, 5).bytes();
        ByteBuffer result = ByteBuffer.allocate(reply.length + 8).position(8).put(reply).position(8);
        int offset = Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READ, result);
        assertEquals(4 + 4 + 84 + 4 + 4, offset, "status, post_op_attr, count, eof");
        assertEquals(5, result.getInt(8 + offset));
        assertEquals("23456", new String(reply, offset + 4, 5));
        assertEquals(8, result.position(), "the buffer is not moved");
    }

    @Test
    void theItemOfARealReadlinkReplyIsLocated() throws IOException {
        java.nio.file.Files.createSymbolicLink(exportDir.resolve("l"), java.nio.file.Path.of("target"));
        byte[] link = client.lookup(root, "l");
        byte[] reply = client.nfs(Nfs3.NFSPROC3_READLINK, out -> out.xdrEncodeDynamicOpaque(link)).bytes();
        int offset = Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READLINK, ByteBuffer.wrap(reply));
        assertEquals(4 + 4 + 84, offset);
        assertEquals("target", new String(reply, offset + 4, 6));
    }

    @Test
    void failuresAndTruncatedResultsHaveNoItem() {
        ByteBuffer failure = ByteBuffer.allocate(8).putInt(0, Nfs3.NFS3ERR_STALE);
        assertEquals(-1, Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READ, failure));
        ByteBuffer truncated = ByteBuffer.allocate(16);
        assertEquals(-1, Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READ, truncated), "no room for the item");
        ByteBuffer lying = ByteBuffer.allocate(24).putInt(16, 1000);
        assertEquals(-1, Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READ, lying), "length beyond the buffer");
        assertEquals(-1, Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_GETATTR, ByteBuffer.allocate(100)));
        assertEquals(16, Nfs3Ddp.locateReplyItem(Nfs3.NFSPROC3_READ, ByteBuffer.allocate(20)),
                "an empty READ without attributes: the length word follows status, bool, count and eof");
    }
}
