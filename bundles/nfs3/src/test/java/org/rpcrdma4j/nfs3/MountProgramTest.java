package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** MOUNT v3: MNT (root and below), DUMP, UMNT, UMNTALL, EXPORT. */
class MountProgramTest extends ServerTestBase {

    @Test
    void mntAdvertisesAuthSysAndMountsSubdirectories() throws IOException {
        XdrReader reply = client.mount(Mount3.MOUNTPROC3_MNT, out -> XdrArgs.string(out, "/export")).reader();
        assertEquals(Mount3.MNT3_OK, reply.readInt());
        assertArrayEquals(root, reply.readOpaque(), "the same handle on every MNT");
        assertEquals(1, reply.readInt(), "one flavor");
        assertEquals(Mount3.AUTH_SYS, reply.readInt());

        Files.createDirectories(exportDir.resolve("a/b"));
        byte[] sub = client.mountRoot("/export/a/b");
        assertArrayEquals(client.lookup(client.lookup(root, "a"), "b"), sub);
        assertEquals(Mount3.MNT3ERR_NOENT, mnt("/export/none"));
        assertEquals(Mount3.MNT3ERR_NOENT, mnt("/elsewhere"));
        assertEquals(Mount3.MNT3ERR_INVAL, mnt("/export/a/.."));
        Files.createFile(exportDir.resolve("file"));
        assertEquals(Mount3.MNT3ERR_NOTDIR, mnt("/export/file"));
    }

    @Test
    void dumpListsMountsUntilUnmounted() throws IOException {
        assertEquals(List.of("127.0.0.1 /export"), dump(), "the base class mounted /export");
        client.mount(Mount3.MOUNTPROC3_UMNT, out -> XdrArgs.string(out, "/export"));
        assertTrue(dump().isEmpty(), "UMNT removed it");
        client.mountRoot("/export");
        client.mount(Mount3.MOUNTPROC3_UMNTALL, out -> { });
        assertTrue(dump().isEmpty(), "UMNTALL removed every mount of the host");
    }

    @Test
    void exportListsPathsAndClientNetworks() throws IOException {
        XdrReader reply = client.mount(Mount3.MOUNTPROC3_EXPORT, out -> { }).reader();
        assertTrue(reply.readBool());
        assertEquals("/export", reply.readString());
        assertTrue(reply.readBool());
        assertEquals("127.0.0.1/32", reply.readString());
        assertFalse(reply.readBool(), "one group");
        assertFalse(reply.readBool(), "one export");
    }

    private int mnt(String path) throws IOException {
        return client.mount(Mount3.MOUNTPROC3_MNT, out -> XdrArgs.string(out, path)).status();
    }

    private List<String> dump() throws IOException {
        XdrReader reply = client.mount(Mount3.MOUNTPROC3_DUMP, out -> { }).reader();
        List<String> mounts = new ArrayList<>();
        while (reply.readBool()) {
            mounts.add(reply.readString() + " " + reply.readString());
        }
        return mounts;
    }
}
