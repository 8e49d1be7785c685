package org.rpcrdma4j.binding.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.COMPOUND;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.NFS4ERR_IO;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.NFS4ERR_STALE;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.NFS4_OK;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_CLOSE;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_GETATTR;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_LOOKUP;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_LOOKUPP;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_NVERIFY;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_PUTFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_PUTPUBFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_PUTROOTFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_READ;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_READDIR;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_RESTOREFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_SAVEFH;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.OP_VERIFY;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.access;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.compound;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.data;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.getattr;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.getfh;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.read;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.readlink;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.sequence;
import static org.rpcrdma4j.binding.nfs.support.Nfs4Replies.statusOnly;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.binding.nfs.support.XdrWriter;

/** NFSv4.x COMPOUND replies: the first READ data or READLINK text is found after the results clients put before it. */
class Nfs4CompoundTest {
    private static final int V4 = 4;

    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();

    private int locate(XdrWriter w) {
        return binding.locateReplyItem(V4, COMPOUND, w.toBuffer());
    }

    @Test
    void nfs40PutfhReadLocatesTheData() {
        XdrWriter w = compound(NFS4_OK, "", 2);
        statusOnly(w, OP_PUTFH);
        int item = read(w, false, data(100));
        assertEquals(item, locate(w));
        assertEquals(4 + 4 + 4 + 8 + 8 + 4, item, "status, empty tag, count, PUTFH, READ's opcode, status, eof");
    }

    @Test
    void nfs41SequencePutfhReadLocatesTheData() {
        XdrWriter w = compound(NFS4_OK, "read", 3);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        int item = read(w, true, data(4096));
        assertEquals(item, locate(w));
        ByteBuffer result = w.toBuffer();
        assertEquals(4096, result.getInt(item), "the length word of the data");
        assertEquals('a', result.get(item + 4), "the data follows it");
    }

    @Test
    void nfs41SequencePutfhGetattrReadStepsOverTheAttributes() {
        XdrWriter w = compound(NFS4_OK, "", 4);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        getattr(w, new int[] {0x0010011a, 0x00b0a23a}, data(97));
        int item = read(w, false, data(1));
        assertEquals(item, locate(w));
    }

    @Test
    void readlinkLocatesTheLinkText() {
        XdrWriter w = compound(NFS4_OK, "readlink", 3);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        int item = readlink(w, "../target/of/the/link");
        assertEquals(item, locate(w));
    }

    @Test
    void theLinuxOpenlessReadPathsAndTheirNeighboursAreSteppedOver() {
        XdrWriter w = compound(NFS4_OK, "", 12);
        sequence(w);
        statusOnly(w, OP_PUTROOTFH);
        statusOnly(w, OP_PUTPUBFH);
        statusOnly(w, OP_LOOKUP);
        statusOnly(w, OP_LOOKUPP);
        statusOnly(w, OP_SAVEFH);
        statusOnly(w, OP_RESTOREFH);
        statusOnly(w, OP_VERIFY);
        statusOnly(w, OP_NVERIFY);
        getfh(w, data(29));
        access(w);
        int item = read(w, false, data(10));
        assertEquals(item, locate(w));
    }

    @Test
    void onlyTheFirstReadCounts() {
        XdrWriter w = compound(NFS4_OK, "", 3);
        statusOnly(w, OP_PUTFH);
        int first = read(w, false, data(8));
        read(w, true, data(8));
        assertEquals(first, locate(w));
    }

    @Test
    void aReadThatSucceededBeforeALaterFailureKeepsItsData() {
        XdrWriter w = compound(NFS4ERR_STALE, "", 3);
        statusOnly(w, OP_PUTFH);
        int item = read(w, false, data(8));
        w.word(OP_GETATTR).word(NFS4ERR_STALE);
        assertEquals(item, locate(w));
    }

    @Test
    void aFailedReadHasNoItem() {
        XdrWriter w = compound(NFS4ERR_IO, "", 2);
        statusOnly(w, OP_PUTFH);
        w.word(OP_READ).word(NFS4ERR_IO);
        assertEquals(-1, locate(w));
    }

    @Test
    void aFailedOperationBeforeTheReadEndsTheWalk() {
        XdrWriter w = compound(NFS4ERR_STALE, "", 2);
        w.word(OP_PUTFH).word(NFS4ERR_STALE);
        read(w, false, data(8)); // a server would not send it; the walk must not reach it
        assertEquals(-1, locate(w));
    }

    @Test
    void anUnknownOperationBeforeTheReadMeansCannotTell() {
        XdrWriter w = compound(NFS4_OK, "", 3);
        statusOnly(w, OP_PUTFH);
        w.word(OP_CLOSE).word(NFS4_OK).word(2).fixed(12); // CLOSE4res: not stepped over
        read(w, false, data(8));
        assertEquals(-1, locate(w));
    }

    @Test
    void aCompoundWithoutReadOrReadlinkHasNoItem() {
        XdrWriter w = compound(NFS4_OK, "", 2);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        assertEquals(-1, locate(w));
        XdrWriter readdir = compound(NFS4_OK, "", 2);
        statusOnly(readdir, OP_PUTFH);
        readdir.word(OP_READDIR).word(NFS4_OK).fixed(8).word(0).bool(true);
        assertEquals(-1, locate(readdir), "READDIR goes through the reply chunk, not a write chunk");
    }

    @Test
    void theResultCountBoundsTheWalk() {
        XdrWriter w = compound(NFS4_OK, "", 1);
        statusOnly(w, OP_PUTFH);
        read(w, false, data(8)); // beyond the count: not a result of this COMPOUND
        assertEquals(-1, locate(w));
    }

    @Test
    void anEofReadWithNoDataLocatesAZeroLengthItem() {
        XdrWriter w = compound(NFS4_OK, "", 2);
        statusOnly(w, OP_PUTFH);
        int item = read(w, true, new byte[0]);
        assertEquals(item, locate(w));
        assertEquals(item + 4, w.size(), "the length word ends the result");
    }

    @Test
    void aTruncatedResultHasNoItem() {
        XdrWriter w = compound(NFS4_OK, "tag", 3);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        int item = read(w, false, data(13));
        byte[] whole = w.toBytes();
        for (int length = 0; length < whole.length; length++) {
            ByteBuffer truncated = ByteBuffer.wrap(whole, 0, length).slice();
            int expected = length >= item + 4 + 13 ? item : -1; // the round-up is not needed
            assertEquals(expected, binding.locateReplyItem(V4, COMPOUND, truncated), "truncated to " + length);
        }
    }

    @Test
    void aDataLengthBeyondTheResultHasNoItem() {
        XdrWriter w = compound(NFS4_OK, "", 2);
        statusOnly(w, OP_PUTFH);
        int item = read(w, false, data(16));
        ByteBuffer result = w.toBuffer();
        result.putInt(item, 17);
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, result), "one byte more than there is");
        result.putInt(item, -4);
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, result), "negative");
        result.putInt(item, Integer.MAX_VALUE);
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, result), "would overflow an int offset");
    }

    @Test
    void hugeTagOrAttributeLengthsHaveNoItem() {
        XdrWriter tag = compound(NFS4_OK, "", 2);
        statusOnly(tag, OP_PUTFH);
        read(tag, false, data(8));
        ByteBuffer result = tag.toBuffer();
        result.putInt(4, Integer.MAX_VALUE - 1);
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, result), "tag length");

        XdrWriter attributes = compound(NFS4_OK, "", 2);
        int bitmapCount = attributes.size() + 8;
        getattr(attributes, new int[] {1}, data(4));
        read(attributes, false, data(8));
        result = attributes.toBuffer();
        result.putInt(bitmapCount, 0x40000001); // times 4 wraps to 4 in int arithmetic
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, result), "bitmap count");
    }

    @Test
    void theOffsetIsRelativeToThePositionAndTheLimitIsRespected() {
        XdrWriter w = compound(NFS4_OK, "", 3);
        sequence(w);
        statusOnly(w, OP_PUTFH);
        int item = read(w, false, data(5));
        ByteBuffer framed = w.toBuffer(36, 8);
        assertEquals(item, binding.locateReplyItem(V4, COMPOUND, framed));
        assertEquals(36, framed.position(), "the position is not moved");
        assertEquals(36 + w.size(), framed.limit(), "nor the limit");
        ByteBuffer cut = w.toBuffer(36, 64).limit(36 + item + 4 + 4);
        assertEquals(-1, binding.locateReplyItem(V4, COMPOUND, cut), "the data crosses the limit");
    }

    @Test
    void nullAndOtherProceduresHaveNoItem() {
        XdrWriter w = compound(NFS4_OK, "", 2);
        statusOnly(w, OP_PUTFH);
        read(w, false, data(8));
        assertEquals(-1, binding.locateReplyItem(V4, 0, w.toBuffer()), "NULL");
        assertEquals(-1, binding.locateReplyItem(V4, 2, w.toBuffer()), "no such procedure");
        assertEquals(-1, binding.locateReplyItem(5, COMPOUND, w.toBuffer()), "no such version");
    }
}
