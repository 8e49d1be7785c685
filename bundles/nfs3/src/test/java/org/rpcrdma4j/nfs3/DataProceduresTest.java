package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.internal.DataProcedures;
import org.rpcrdma4j.nfs3.support.NfsReply;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** READ, WRITE (UNSTABLE, DATA_SYNC, FILE_SYNC) and COMMIT. */
class DataProceduresTest extends ServerTestBase {

    @Test
    void writeThenReadIsByteExactWithEof() throws IOException {
        byte[] file = client.create(root, "data", 0644);
        byte[] data = new byte[100_003];
        new Random(7).nextBytes(data);
        XdrReader write = client.write(file, 0, data, Nfs3.FILE_SYNC).reader();
        assertStatus(Nfs3.NFS3_OK, write.readInt(), "WRITE");
        XdrReader.Wcc wcc = write.readWcc();
        assertEquals(0, wcc.before().size());
        assertEquals(data.length, wcc.after().size());
        assertEquals(data.length, write.readInt(), "count");
        assertEquals(Nfs3.FILE_SYNC, write.readInt(), "committed");
        assertArrayEquals(data, Files.readAllBytes(exportDir.resolve("data")));

        XdrReader whole = client.read(file, 0, 200_000).reader();
        assertStatus(Nfs3.NFS3_OK, whole.readInt(), "READ");
        assertNotNull(whole.readPostOpAttr());
        assertEquals(data.length, whole.readInt());
        assertTrue(whole.readBool(), "eof at the end of the file");
        assertArrayEquals(data, whole.readOpaque());

        XdrReader middle = client.read(file, 1000, 10).reader();
        middle.readInt();
        middle.readPostOpAttr();
        assertEquals(10, middle.readInt());
        assertFalse(middle.readBool(), "no eof in the middle");
        byte[] slice = new byte[10];
        System.arraycopy(data, 1000, slice, 0, 10);
        assertArrayEquals(slice, middle.readOpaque());

        XdrReader toTheEnd = client.read(file, data.length - 3, 3).reader();
        toTheEnd.readInt();
        toTheEnd.readPostOpAttr();
        assertEquals(3, toTheEnd.readInt());
        assertTrue(toTheEnd.readBool(), "eof for a range that ends exactly at the end of the file");

        XdrReader beyond = client.read(file, 1 << 20, 10).reader();
        beyond.readInt();
        beyond.readPostOpAttr();
        assertEquals(0, beyond.readInt());
        assertTrue(beyond.readBool(), "eof beyond the end");
    }

    @Test
    void endOfFileIsDecidedByTheFileWhenTheSizeSeenIsReachedOrStale() throws IOException {
        Path path = exportDir.resolve("grown");
        Files.write(path, new byte[8192]);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            assertFalse(DataProcedures.endsAt(channel, 4096, 8192), "a range ending below the size seen");
            assertTrue(DataProcedures.endsAt(channel, 8192, 8192), "a range ending at the size seen and the file's");
            assertFalse(DataProcedures.endsAt(channel, 6000, 4096),
                    "the file grew past the size seen: the file's own size says there is more");
            assertTrue(DataProcedures.endsAt(channel, 9000, 4096), "past the end of both");
        }
    }

    @Test
    void unstableWritesAreCommittedUnderAStableVerifier() throws IOException {
        byte[] file = client.create(root, "u", 0644);
        XdrReader first = client.write(file, 0, "hello ".getBytes(), Nfs3.UNSTABLE).reader();
        first.readInt();
        first.readWcc();
        first.readInt();
        assertEquals(Nfs3.UNSTABLE, first.readInt());
        long verifier = first.readLong();
        XdrReader second = client.write(file, 6, "world".getBytes(), Nfs3.DATA_SYNC).reader();
        second.readInt();
        second.readWcc();
        second.readInt();
        assertEquals(Nfs3.DATA_SYNC, second.readInt());
        assertEquals(verifier, second.readLong(), "one verifier per server run");
        XdrReader commit = client.nfs(Nfs3.NFSPROC3_COMMIT, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(0);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, commit.readInt(), "COMMIT");
        assertEquals(11, commit.readWcc().after().size());
        assertEquals(verifier, commit.readLong());
        assertEquals("hello world", Files.readString(exportDir.resolve("u")));
    }

    @Test
    void readAndWriteRefuseDirectoriesAndBadCounts() throws IOException {
        assertStatus(Nfs3.NFS3ERR_ISDIR, client.read(root, 0, 10).status(), "READ of a directory");
        assertStatus(Nfs3.NFS3ERR_ISDIR, client.write(root, 0, new byte[1], Nfs3.FILE_SYNC).status(),
                "WRITE to a directory");
        byte[] file = client.create(root, "f", 0644);
        NfsReply mismatch = client.nfs(Nfs3.NFSPROC3_WRITE, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(5);
            out.xdrEncodeInt(Nfs3.UNSTABLE);
            out.xdrEncodeDynamicOpaque(new byte[3]);
        });
        XdrReader reply = mismatch.reader();
        assertStatus(Nfs3.NFS3ERR_INVAL, reply.readInt(), "count larger than the data");
        assertNotNull(reply.readWcc().before(), "WRITE failure carries wcc_data");
    }

    @Test
    void readIsCappedAtRtmax() throws IOException {
        byte[] file = client.create(root, "big", 0644);
        Files.write(exportDir.resolve("big"), new byte[1_500_000]);
        XdrReader reply = client.read(file, 0, 1_500_000).reader();
        reply.readInt();
        reply.readPostOpAttr();
        int count = reply.readInt();
        assertEquals(1024 * 1024, count, "rtmax as announced by FSINFO");
        assertFalse(reply.readBool());
    }
}
