package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** Several clients, each on its own connection, create, write, commit and list concurrently. */
class ConcurrencyTest extends ServerTestBase {

    private static final int CLIENTS = 8;
    private static final int CHUNK = 64 * 1024;
    private static final int CHUNKS = 16;

    @Test
    void concurrentWritersEachGetTheirBytes() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<byte[]>> results = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int id = i;
                results.add(pool.submit(() -> writeOneFile(id)));
            }
            for (int i = 0; i < CLIENTS; i++) {
                assertArrayEquals(results.get(i).get(), Files.readAllBytes(exportDir.resolve("file-" + i)),
                        "file-" + i);
            }
        } finally {
            pool.shutdownNow();
        }
        try (var entries = Files.list(exportDir)) {
            assertEquals(CLIENTS, entries.count());
        }
    }

    private byte[] writeOneFile(int id) throws Exception {
        byte[] data = new byte[CHUNK * CHUNKS];
        new Random(id).nextBytes(data);
        try (NfsClient own = new NfsClient(server.port(), owner, group)) {
            byte[] dir = own.mountRoot("/export");
            byte[] file = own.create(dir, "file-" + id, 0644);
            for (int chunk = 0; chunk < CHUNKS; chunk++) {
                byte[] piece = new byte[CHUNK];
                System.arraycopy(data, chunk * CHUNK, piece, 0, CHUNK);
                assertStatus(Nfs3.NFS3_OK, own.write(file, (long) chunk * CHUNK, piece, Nfs3.UNSTABLE).status(),
                        "WRITE " + chunk + " of file-" + id);
            }
            XdrReader commit = own.nfs(Nfs3.NFSPROC3_COMMIT, out -> {
                out.xdrEncodeDynamicOpaque(file);
                out.xdrEncodeLong(0);
                out.xdrEncodeInt(0);
            }).reader();
            assertStatus(Nfs3.NFS3_OK, commit.readInt(), "COMMIT of file-" + id);
        }
        return data;
    }
}
