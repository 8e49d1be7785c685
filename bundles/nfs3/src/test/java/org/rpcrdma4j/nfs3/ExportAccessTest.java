package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** Export rules are checked against the real peer address on MNT and on every NFS call. */
class ExportAccessTest {

    @TempDir
    Path temp;

    @Test
    void aPeerOutsideTheNetworksIsRefusedOnMountAndOnEveryCall() throws IOException {
        Path state = temp.resolve("state");
        byte[] root;
        Export admitted = TestServer.export(temp, "127.0.0.1/32(rw)");
        int owner = Identity.handToOwner(admitted.directory());
        try (TestServer server = TestServer.start(state, admitted);
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            root = client.mountRoot("/export");
            client.create(root, "f", 0644);
        }
        Export refused = TestServer.export(temp, "10.0.0.0/8(rw)", "192.168.0.0/16(rw)");
        try (TestServer server = TestServer.start(state, refused);
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            assertEquals(Mount3.MNT3ERR_ACCES, client.mount(Mount3.MOUNTPROC3_MNT,
                    out -> XdrArgs.string(out, "/export")).status(), "MNT from 127.0.0.1");
            assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_GETATTR,
                    out -> out.xdrEncodeDynamicOpaque(root)).status(), "GETATTR with a valid handle");
            assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_REMOVE,
                    out -> XdrArgs.dirop(out, root, "f")).status(), "REMOVE with a valid handle");
            XdrReader dump = client.mount(Mount3.MOUNTPROC3_DUMP, out -> { }).reader();
            assertFalse(dump.readBool(), "a refused MNT is not recorded");
        }
        assertTrue(Files.exists(admitted.directory().resolve("f")));
    }

    @Test
    void aReadOnlyExportRefusesEveryModification() throws IOException {
        Export export = TestServer.export(temp, "127.0.0.1/32(ro)");
        int owner = Identity.handToOwner(export.directory());
        Files.writeString(export.directory().resolve("f"), "read me");
        try (TestServer server = TestServer.start(temp.resolve("state"), export);
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            byte[] root = client.mountRoot("/export");
            byte[] file = client.lookup(root, "f");
            assertStatus(Nfs3.NFS3ERR_ROFS, client.write(file, 0, new byte[1], Nfs3.FILE_SYNC).status(), "WRITE");
            assertStatus(Nfs3.NFS3ERR_ROFS, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
                XdrArgs.dirop(out, root, "new");
                out.xdrEncodeInt(Nfs3.UNCHECKED);
                XdrArgs.sattrMode(out, 0644);
            }).status(), "CREATE");
            assertStatus(Nfs3.NFS3ERR_ROFS, client.nfs(Nfs3.NFSPROC3_REMOVE,
                    out -> XdrArgs.dirop(out, root, "f")).status(), "REMOVE");
            assertStatus(Nfs3.NFS3ERR_ROFS, client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
                out.xdrEncodeDynamicOpaque(file);
                XdrArgs.sattrMode(out, 0600);
                out.xdrEncodeBoolean(false);
            }).status(), "SETATTR");
            XdrReader access = client.nfs(Nfs3.NFSPROC3_ACCESS, out -> {
                out.xdrEncodeDynamicOpaque(file);
                out.xdrEncodeInt(Nfs3.ACCESS3_READ | Nfs3.ACCESS3_MODIFY);
            }).reader();
            access.readInt();
            access.readPostOpAttr();
            assertEquals(Nfs3.ACCESS3_READ, access.readInt(), "ACCESS grants no MODIFY on a read-only export");
            XdrReader read = client.read(file, 0, 100).reader();
            assertStatus(Nfs3.NFS3_OK, read.readInt(), "READ");
        }
        assertEquals("read me", Files.readString(export.directory().resolve("f")));
    }
}
