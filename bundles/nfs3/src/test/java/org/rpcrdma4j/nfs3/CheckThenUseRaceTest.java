package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * The window between a handle's check ({@code ExportRoot.verify}: the object's path has no
 * symbolic link above it) and the path-based work that follows. A hostile client lists a large
 * directory {@code d} with READDIRPLUS, which reads each entry's attributes by path, and on a
 * second connection swaps {@code d} for a symbolic link to a directory outside the export
 * (RENAME it away, SYMLINK in its place) while the listing runs. Unprotected, the entries read
 * after the swap are read through the link: the reply carries the attributes, and a handle,
 * of a file outside the export.
 */
class CheckThenUseRaceTest extends ServerTestBase {

    private static final int ENTRIES = 1500;
    private static final int ROUNDS = 6;
    private static final String BAIT = "zzz-secret";

    @Test
    void aDirectorySwappedForASymlinkDuringAListingNeverLeadsOutside() throws Exception {
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.write(outside.resolve(BAIT), new byte[7777]);
        long outsideInode = (Long) Files.getAttribute(outside.resolve(BAIT), "unix:ino", LinkOption.NOFOLLOW_LINKS);
        byte[] dir = client.mkdir(root, "d", 0777);
        Path d = exportDir.resolve("d");
        for (int i = 0; i < ENTRIES; i++) {
            Files.createFile(d.resolve(String.format("entry-%05d", i)));
        }
        Files.createFile(d.resolve(BAIT));

        ExecutorService threads = Executors.newFixedThreadPool(1);
        List<String> escapes = new ArrayList<>();
        int swappedDuringListing = 0;
        try (NfsClient lister = new NfsClient(server.port(), owner, group)) {
            for (int round = 0; round < ROUNDS; round++) {
                Future<List<long[]>> listing = threads.submit(() -> readdirplus(lister, dir));
                Thread.sleep(1 + round % 4);
                assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
                    XdrArgs.dirop(out, root, "d");
                    XdrArgs.dirop(out, root, "d-away");
                }).status(), "RENAME d away");
                assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_SYMLINK, out -> {
                    XdrArgs.dirop(out, root, "d");
                    XdrArgs.sattrMode(out, -1);
                    XdrArgs.string(out, outside.toString());
                }).status(), "SYMLINK d to outside");
                if (!listing.isDone()) {
                    swappedDuringListing++;
                }
                for (long[] entry : listing.get(60, TimeUnit.SECONDS)) {
                    if (entry[0] == outsideInode || entry[1] == 7777) {
                        escapes.add("round " + round + ": fileid " + entry[0] + " size " + entry[1]);
                    }
                }
                assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_REMOVE, out -> XdrArgs.dirop(out, root, "d"))
                        .status(), "REMOVE the link");
                assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
                    XdrArgs.dirop(out, root, "d-away");
                    XdrArgs.dirop(out, root, "d");
                }).status(), "RENAME d back");
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of(), escapes, "READDIRPLUS entries read outside the export ("
                + swappedDuringListing + " of " + ROUNDS + " swaps answered while the listing ran)");
    }

    /** READDIRPLUS from cookie 0 in one large page: (fileid, size) of each entry. */
    private static List<long[]> readdirplus(NfsClient lister, byte[] dir) throws IOException {
        XdrReader reply = lister.nfs(Nfs3.NFSPROC3_READDIRPLUS, out -> {
            out.xdrEncodeDynamicOpaque(dir);
            out.xdrEncodeLong(0);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(1 << 20);
            out.xdrEncodeInt(1 << 20);
        }).reader();
        List<long[]> entries = new ArrayList<>();
        if (reply.readInt() != Nfs3.NFS3_OK) {
            return entries;
        }
        reply.readPostOpAttr();
        reply.readLong();
        while (reply.readBool()) {
            long fileid = reply.readLong();
            reply.readOpaque();
            reply.readLong();
            XdrReader.Fattr attributes = reply.readPostOpAttr();
            reply.readPostOpHandle();
            entries.add(new long[] {fileid, attributes == null ? -1 : attributes.size()});
        }
        assertTrue(entries.size() > 0, "a listing");
        return entries;
    }
}
