package org.rpcrdma4j.nfs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.dcache.nfs.ExportFile;
import org.junit.jupiter.api.Test;

/**
 * What the export table gives a client address, as each call's identity needs it: worked out
 * once per address and table, and again after the table is replaced.
 */
class ClientExportsTest {

    private static final Path ROOT = Path.of("/srv/served");

    private static ExportFile table(String lines) throws IOException {
        return new ExportFile(new StringReader(lines));
    }

    @Test
    void eachAddressIsWorkedOutOnceAndAgainAfterTheTableIsReplaced() throws IOException {
        SwitchableExportTable exports = new SwitchableExportTable(
                table("/a 10.0.0.1(rw,no_root_squash)\n/b 10.0.0.0/8(rw,all_squash)\n"));
        CallerIdentity.ClientExports given = new CallerIdentity.ClientExports(exports, ROOT);
        InetAddress one = InetAddress.getByName("10.0.0.1");
        InetAddress two = InetAddress.getByName("10.0.0.2");

        CallerIdentity.ClientExports.Given first = given.of(one);
        assertEquals(List.of(ROOT.resolve("a"), ROOT.resolve("b")), first.exported());
        assertTrue(first.squashesAll(), "one of its lines squashes everybody");
        assertSame(first, given.of(one), "kept for the next call");
        assertEquals(List.of(ROOT.resolve("b")), given.of(two).exported());
        assertTrue(given.of(InetAddress.getByName("192.168.0.1")).none(), "an address no line names");

        exports.replace(table("/c 10.0.0.1(rw,no_root_squash)\n"));
        CallerIdentity.ClientExports.Given after = given.of(one);
        assertNotSame(first, after);
        assertEquals(List.of(ROOT.resolve("c")), after.exported(), "the new table's lines, from the first call after");
        assertFalse(after.squashesAll());
        assertTrue(after.keepsRoot());
        assertTrue(given.of(two).none(), "an address the new table no longer names");
    }

    @Test
    void atMostSoManyAddressesAreKept() throws IOException {
        // a network, not "*": nfs4j matches a wildcard line by the client's host name (reverse DNS)
        CallerIdentity.ClientExports given = new CallerIdentity.ClientExports(table("/ 10.0.0.0/8(rw)\n"), ROOT);
        InetAddress first = InetAddress.getByName("10.1.0.0");
        CallerIdentity.ClientExports.Given kept = given.of(first);
        for (int i = 1; i < CallerIdentity.ClientExports.ADDRESSES_MAX - 1; i++) {
            given.of(InetAddress.getByAddress(new byte[] {10, 1, (byte) (i >>> 8), (byte) i}));
        }
        assertSame(kept, given.of(first), "still kept below the bound");
        given.of(InetAddress.getByName("10.2.0.0")); // the bound reached: the next call drops them all
        assertNotSame(kept, given.of(first), "worked out again");
    }
}
