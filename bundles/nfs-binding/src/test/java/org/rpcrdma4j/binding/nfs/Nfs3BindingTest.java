package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.data;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.binding.nfs.support.XdrWriter;

/**
 * NFSv3 READ3res and READLINK3res, hand-encoded (RFC 1813 §3.3.6, §3.3.5). The same binding
 * against real replies of our NFSv3 server is tested in the nfs3 module (Nfs3DdpTest).
 */
class Nfs3BindingTest {
    private static final int V3 = 3;
    private static final int READLINK = 5;
    private static final int READ = 6;
    private static final int GETATTR = 1;
    private static final int NFS3_OK = 0;
    private static final int NFS3ERR_IO = 5;

    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();

    /** post_op_attr with attributes: true, then a fattr3 (type, mode, nlink, uid, gid, five hypers, three times). */
    private static XdrWriter attributes(XdrWriter w) {
        w.bool(true).words(1, 0644, 1, 1000, 1000);
        w.hyper(10).hyper(4096).words(0, 0).hyper(7).hyper(1234);
        return w.words(1, 0, 2, 0, 3, 0);
    }

    @Test
    void readWithAttributes() {
        XdrWriter w = attributes(new XdrWriter().word(NFS3_OK)).word(10).bool(true);
        int item = w.size();
        w.opaque(data(10));
        assertEquals(item, binding.locateReplyItem(V3, READ, w.toBuffer()));
        assertEquals(4 + 4 + 84 + 8, item, "status, post_op_attr, count, eof");
    }

    @Test
    void readWithoutAttributes() {
        XdrWriter w = new XdrWriter().word(NFS3_OK).bool(false).word(3).bool(false);
        int item = w.size();
        w.opaque(data(3));
        assertEquals(item, binding.locateReplyItem(V3, READ, w.toBuffer()));
    }

    @Test
    void readlinkWithAttributes() {
        XdrWriter w = attributes(new XdrWriter().word(NFS3_OK));
        int item = w.size();
        w.opaque("a/b".getBytes());
        assertEquals(item, binding.locateReplyItem(V3, READLINK, w.toBuffer(12, 4)));
    }

    @Test
    void anEmptyReadAtEof() {
        XdrWriter w = new XdrWriter().word(NFS3_OK).bool(false).word(0).bool(true);
        int item = w.size();
        w.word(0);
        assertEquals(item, binding.locateReplyItem(V3, READ, w.toBuffer()));
    }

    @Test
    void aFailureHasNoItem() {
        XdrWriter w = attributes(new XdrWriter().word(NFS3ERR_IO)).word(0).bool(true).word(0);
        assertEquals(-1, binding.locateReplyItem(V3, READ, w.toBuffer()));
    }

    @Test
    void aMalformedAttributesFlagHasNoItem() {
        XdrWriter w = new XdrWriter().word(NFS3_OK).word(2).word(3).bool(false).opaque(data(3));
        assertEquals(-1, binding.locateReplyItem(V3, READ, w.toBuffer()), "bool 2");
    }

    @Test
    void truncatedOrLyingResultsHaveNoItem() {
        XdrWriter w = new XdrWriter().word(NFS3_OK).bool(false).word(6).bool(false);
        int item = w.size();
        w.opaque(data(6));
        byte[] whole = w.toBytes();
        for (int length = 0; length < whole.length; length++) {
            int expected = length >= item + 4 + 6 ? item : -1;
            assertEquals(expected, binding.locateReplyItem(V3, READ, ByteBuffer.wrap(whole, 0, length).slice()),
                    "truncated to " + length);
        }
        ByteBuffer lying = w.toBuffer();
        lying.putInt(item, 9);
        assertEquals(-1, binding.locateReplyItem(V3, READ, lying));
        lying.putInt(item, Integer.MIN_VALUE);
        assertEquals(-1, binding.locateReplyItem(V3, READ, lying));
    }

    @Test
    void otherProceduresHaveNoItem() {
        XdrWriter w = new XdrWriter().word(NFS3_OK).bool(false).word(6).bool(false).opaque(data(6));
        assertEquals(-1, binding.locateReplyItem(V3, GETATTR, w.toBuffer()));
        assertEquals(-1, binding.locateReplyItem(2, READ, w.toBuffer()), "NFSv2 has no binding here");
    }
}
