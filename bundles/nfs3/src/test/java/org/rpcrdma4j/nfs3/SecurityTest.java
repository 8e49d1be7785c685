package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * Nothing outside the export is reachable; forged handles, foreign peers, read-only exports,
 * squashed roots and unprivileged callers are refused with the right codes.
 */
class SecurityTest extends ServerTestBase {

    @Test
    void symbolicLinksAreNeverFollowed() throws IOException {
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "outside");
        Files.createSymbolicLink(exportDir.resolve("escape"), outside);
        Files.createSymbolicLink(exportDir.resolve("file-escape"), outside.resolve("secret"));
        byte[] escape = client.lookup(root, "escape");
        assertEquals(Nfs3.NF3LNK, client.getattr(escape).type(), "LOOKUP returns the link itself");
        assertStatus(Nfs3.NFS3ERR_NOTDIR, client.nfs(Nfs3.NFSPROC3_LOOKUP,
                out -> XdrArgs.dirop(out, escape, "secret")).status(), "LOOKUP through a symbolic link");
        assertStatus(Nfs3.NFS3ERR_NOTDIR, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, escape, "planted");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 0644);
        }).status(), "CREATE through a symbolic link");
        byte[] fileEscape = client.lookup(root, "file-escape");
        assertStatus(Nfs3.NFS3ERR_INVAL, client.read(fileEscape, 0, 100).status(), "READ of a symbolic link");
        assertStatus(Nfs3.NFS3ERR_INVAL, client.write(fileEscape, 0, new byte[1], Nfs3.FILE_SYNC).status(),
                "WRITE to a symbolic link");
        assertFalse(Files.exists(outside.resolve("planted")));
        assertEquals("outside", Files.readString(outside.resolve("secret")));
    }

    @Test
    void dotDotNeverLeavesTheExport() throws IOException {
        byte[] dir = client.mkdir(root, "d", 0755);
        assertArrayEquals(root, client.lookup(dir, ".."));
        assertArrayEquals(root, client.lookup(client.lookup(dir, ".."), ".."), "stops at the export root");
        assertEquals(Mount3.MNT3ERR_INVAL, client.mount(Mount3.MOUNTPROC3_MNT,
                out -> XdrArgs.string(out, "/export/../etc")).status());
    }

    @Test
    void aDirectorySwappedForALinkDoesNotLeadOutside() throws IOException {
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("f"), "outside");
        Files.createDirectories(exportDir.resolve("d"));
        Files.writeString(exportDir.resolve("d/f"), "inside");
        byte[] d = client.lookup(root, "d");
        byte[] f = client.lookup(d, "f");
        Files.move(exportDir.resolve("d"), exportDir.resolve("moved"));
        Files.createSymbolicLink(exportDir.resolve("d"), outside);
        XdrReader read = client.read(f, 0, 100).reader();
        assertStatus(Nfs3.NFS3_OK, read.readInt(), "READ by handle after the swap");
        read.readPostOpAttr();
        read.readInt();
        read.readBool();
        assertEquals("inside", new String(read.readOpaque()), "the handle still names the inside file");
        XdrReader lookup = client.nfs(Nfs3.NFSPROC3_LOOKUP, out -> XdrArgs.dirop(out, d, "f")).reader();
        assertStatus(Nfs3.NFS3_OK, lookup.readInt(), "LOOKUP in the moved directory");
        assertArrayEquals(f, lookup.readOpaque());
    }

    @Test
    void forgedAndForeignHandlesAreBadHandles() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        byte[] forged = file.clone();
        forged[20] ^= 1; // another fileid, MAC unchanged
        assertStatus(Nfs3.NFS3ERR_BADHANDLE, getattr(forged), "fileid altered");
        byte[] badMac = file.clone();
        badMac[39] ^= 1;
        assertStatus(Nfs3.NFS3ERR_BADHANDLE, getattr(badMac), "MAC altered");
        assertStatus(Nfs3.NFS3ERR_BADHANDLE, getattr(new byte[8]), "too short");
        try (TestServer other = TestServer.start(temp.resolve("other-state"),
                TestServer.export(temp.resolve("other"), "127.0.0.1(rw)"));
             NfsClient otherClient = new NfsClient(other.port(), owner, group)) {
            byte[] otherRoot = otherClient.mountRoot("/export");
            assertStatus(Nfs3.NFS3ERR_BADHANDLE, getattr(otherRoot), "signed with another server's key");
        }
    }

    private int getattr(byte[] handle) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_GETATTR, out -> out.xdrEncodeDynamicOpaque(handle)).status();
    }

    @Test
    void malformedArgumentsAreGarbageAndUnknownProceduresUnavailable() {
        assertThrows(OncRpcException.class, () -> client.nfs(Nfs3.NFSPROC3_GETATTR, out -> {
            out.xdrEncodeInt(65);
            out.xdrEncodeOpaque(new byte[68], 68);
        }), "a 65-byte handle is GARBAGE_ARGS");
        assertThrows(OncRpcException.class, () -> client.nfs(22, out -> { }), "procedure 22 is PROC_UNAVAIL");
        assertThrows(OncRpcException.class, () -> client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "x");
            out.xdrEncodeInt(7);
        }), "createmode3 7 is GARBAGE_ARGS");
    }

    @Test
    void unprivilegedCallersAreHeldToTheModeBits() throws IOException {
        byte[] secret = client.create(root, "secret", 0600);
        client.write(secret, 0, "s".getBytes(), Nfs3.FILE_SYNC);
        client.as(owner + 1, group + 1);
        assertStatus(Nfs3.NFS3ERR_ACCES, client.read(secret, 0, 10).status(), "READ of 0600 by another user");
        assertStatus(Nfs3.NFS3ERR_ACCES, client.write(secret, 0, new byte[1], Nfs3.FILE_SYNC).status(), "WRITE");
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "intruder");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 0644);
        }).status(), "CREATE in a 0755 directory of another user");
        assertStatus(Nfs3.NFS3ERR_PERM, client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(secret);
            XdrArgs.sattrMode(out, 0666);
            out.xdrEncodeBoolean(false);
        }).status(), "chmod of another user's file");
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_REMOVE,
                out -> XdrArgs.dirop(out, root, "secret")).status(), "REMOVE from another user's directory");
        assertEquals("s", Files.readString(exportDir.resolve("secret")));
    }

    @Test
    void theStickyBitProtectsOtherUsersEntries() throws IOException {
        byte[] shared = client.mkdir(root, "tmp", 01777);
        client.create(shared, "mine", 0644);
        client.as(owner + 1, group + 1);
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_REMOVE,
                out -> XdrArgs.dirop(out, shared, "mine")).status(), "REMOVE of another user's entry");
        client.create(shared, "theirs", 0644);
        assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_REMOVE,
                out -> XdrArgs.dirop(out, shared, "theirs")).status(), "REMOVE of one's own entry");
    }

    @Test
    void rootIsSquashedAndAuthNoneIsAnonymous() throws IOException {
        assumeTrue(Identity.isRoot(), "needs root to observe file ownership of other users");
        client.mkdir(root, "open", 0777);
        byte[] open = client.lookup(root, "open");
        client.as(0, 0);
        byte[] created = client.create(open, "by-root", 0644);
        XdrReader.Fattr attributes = client.getattr(created);
        assertEquals(ExportRule.NOBODY, attributes.uid(), "uid 0 squashed to anonuid");
        assertEquals(ExportRule.NOBODY, attributes.gid(), "gid 0 squashed to anongid");
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "root-file");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 0644);
        }).status(), "squashed root cannot write the owner's 0755 directory");
        client.as(new RpcAuthTypeNone());
        byte[] anonymous = client.create(open, "by-nobody", 0644);
        assertEquals(ExportRule.NOBODY, client.getattr(anonymous).uid(), "AUTH_NONE acts as anonuid");
    }

    @Test
    void noRootSquashLetsRootActAsRoot() throws IOException {
        assumeTrue(Identity.isRoot(), "needs root to create files owned by root");
        Path state = temp.resolve("nrs-state");
        try (TestServer open = TestServer.start(state, TestServer.export(temp.resolve("nrs"),
                "127.0.0.1/32(rw,no_root_squash)"));
             NfsClient rootClient = new NfsClient(open.port(), 0, 0)) {
            byte[] exportRoot = rootClient.mountRoot("/export");
            byte[] file = rootClient.create(exportRoot, "f", 0600);
            assertEquals(0, rootClient.getattr(file).uid());
            assertEquals(0, (Integer) Files.getAttribute(temp.resolve("nrs/export/f"), "unix:uid",
                    LinkOption.NOFOLLOW_LINKS));
        }
    }
}
