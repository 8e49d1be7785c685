package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** File handles survive a restart; the write verifier does not; the key file is guarded. */
class RestartTest {

    @TempDir
    Path temp;

    @Test
    void handlesSurviveARestartAndTheWriteVerifierChanges() throws IOException {
        Path state = temp.resolve("state");
        Export export = TestServer.export(temp, "127.0.0.1/32(rw)");
        int owner = Identity.handToOwner(export.directory());
        byte[] root;
        byte[] deep;
        byte[] doomed;
        long verifier;
        try (TestServer server = TestServer.start(state, export);
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            root = client.mountRoot("/export");
            byte[] a = client.mkdir(root, "a", 0755);
            byte[] b = client.mkdir(a, "b", 0755);
            deep = client.create(b, "deep", 0644);
            doomed = client.create(root, "doomed", 0644);
            verifier = writeVerifier(client, deep);
        }
        Files.delete(export.directory().resolve("doomed"));
        try (TestServer server = TestServer.start(state, export);
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            assertEquals(Nfs3.NF3REG, client.getattr(deep).type(), "a handle unknown to the new server is found");
            assertArrayEquals(root, client.mountRoot("/export"), "the same root handle");
            assertStatus(Nfs3.NFS3ERR_STALE, client.nfs(Nfs3.NFSPROC3_GETATTR,
                    out -> out.xdrEncodeDynamicOpaque(doomed)).status(), "a file deleted while down");
            assertNotEquals(verifier, writeVerifier(client, deep), "a new verifier tells clients to resend");
        }
    }

    private static long writeVerifier(NfsClient client, byte[] file) throws IOException {
        XdrReader reply = client.write(file, 0, new byte[] {1}, Nfs3.UNSTABLE).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "WRITE");
        reply.readWcc();
        reply.readInt();
        reply.readInt();
        return reply.readLong();
    }

    @Test
    void theKeyFileIsCreatedPrivateAndRefusedWhenExposed() throws IOException {
        Path state = temp.resolve("state");
        Export export = TestServer.export(temp, "127.0.0.1(rw)");
        NfsExportService.open(List.of(export), state);
        Path key = state.resolve("filehandle.key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals(32, Files.size(key));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        IOException refused = assertThrows(IOException.class, () -> NfsExportService.open(List.of(export), state));
        assertTrue(refused.getMessage().contains("0600"), refused.getMessage());
    }
}
