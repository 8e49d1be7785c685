package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** READDIR and READDIRPLUS: cookies, verifiers, budgets, and "..". */
class ListingProceduresTest extends ServerTestBase {

    /** One page of a listing. */
    private record Page(long verifier, List<String> names, List<Long> cookies, boolean eof, int handles) {
    }

    @Test
    void readdirPagesThroughALargeDirectoryExactlyOnce() throws IOException {
        for (int i = 0; i < 500; i++) {
            Files.createFile(exportDir.resolve("entry-" + i));
        }
        Set<String> seen = new HashSet<>();
        int pages = 0;
        long cookie = 0;
        long verifier = 0;
        boolean eof = false;
        while (!eof) {
            Page page = readdir(root, cookie, verifier, 1024, false);
            for (String name : page.names()) {
                assertTrue(seen.add(name), "no entry twice: " + name);
            }
            cookie = page.cookies().get(page.cookies().size() - 1);
            verifier = page.verifier();
            eof = page.eof();
            pages++;
        }
        assertEquals(502, seen.size(), "500 entries, '.' and '..'");
        assertTrue(seen.contains(".") && seen.contains(".."));
        assertTrue(pages > 10, "the 1 KiB budget forced many pages, got " + pages);
    }

    @Test
    void readdirplusCarriesAttributesAndHandles() throws IOException {
        client.mkdir(root, "d", 0755);
        client.create(root, "f", 0644);
        Page page = readdir(root, 0, 0, 64 * 1024, true);
        assertEquals(List.of(".", "..", "d", "f"), page.names());
        assertEquals(4, page.handles(), "every entry has a handle");
        assertTrue(page.eof());
    }

    @Test
    void aStaleVerifierIsBadCookie() throws IOException {
        for (int i = 0; i < 50; i++) {
            Files.createFile(exportDir.resolve("e" + i));
        }
        Page first = readdir(root, 0, 0, 512, false);
        long cookie = first.cookies().get(first.cookies().size() - 1);
        client.create(root, "new", 0644);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_READDIR, out -> {
            out.xdrEncodeDynamicOpaque(root);
            out.xdrEncodeLong(cookie);
            out.xdrEncodeLong(first.verifier());
            out.xdrEncodeInt(512);
        }).reader();
        assertStatus(Nfs3.NFS3ERR_BAD_COOKIE, reply.readInt(), "READDIR after the directory changed");
        assertNotNull(reply.readPostOpAttr());
        Page restart = readdir(root, 0, 0, 64 * 1024, false);
        assertTrue(restart.names().contains("new"), "a listing from cookie 0 sees the change");
    }

    @Test
    void aBudgetTooSmallForOneEntryIsTooSmall() throws IOException {
        assertStatus(Nfs3.NFS3ERR_TOOSMALL, client.nfs(Nfs3.NFSPROC3_READDIR, out -> {
            out.xdrEncodeDynamicOpaque(root);
            out.xdrEncodeLong(0);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(100);
        }).status(), "READDIR with count 100");
    }

    @Test
    void readdirOfAFileIsNotDir() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        assertStatus(Nfs3.NFS3ERR_NOTDIR, client.nfs(Nfs3.NFSPROC3_READDIR, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeLong(0);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(4096);
        }).status(), "READDIR of a file");
    }

    private Page readdir(byte[] dir, long cookie, long verifier, int count, boolean plus) throws IOException {
        XdrReader reply = client.nfs(plus ? Nfs3.NFSPROC3_READDIRPLUS : Nfs3.NFSPROC3_READDIR, out -> {
            out.xdrEncodeDynamicOpaque(dir);
            out.xdrEncodeLong(cookie);
            out.xdrEncodeLong(verifier);
            out.xdrEncodeInt(count);
            if (plus) {
                out.xdrEncodeInt(count);
            }
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), plus ? "READDIRPLUS" : "READDIR");
        assertNotNull(reply.readPostOpAttr(), "directory attributes");
        long newVerifier = reply.readLong();
        List<String> names = new ArrayList<>();
        List<Long> cookies = new ArrayList<>();
        int handles = 0;
        while (reply.readBool()) {
            reply.readLong();
            names.add(reply.readString());
            cookies.add(reply.readLong());
            if (plus) {
                assertNotNull(reply.readPostOpAttr(), "entry attributes");
                if (reply.readPostOpHandle() != null) {
                    handles++;
                }
            }
        }
        boolean eof = reply.readBool();
        return new Page(newVerifier, names, cookies, eof, handles);
    }
}
