package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** LOOKUP, CREATE (three modes), MKDIR, SYMLINK, READLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK. */
class NamespaceProceduresTest extends ServerTestBase {

    @Test
    void lookupFindsEntriesAndDotsAndReportsMissingNames() throws IOException {
        Files.writeString(exportDir.resolve("a"), "x");
        byte[] a = client.lookup(root, "a");
        XdrReader.Fattr attributes = client.getattr(a);
        assertEquals(Nfs3.NF3REG, attributes.type());
        assertEquals(Files.getAttribute(exportDir.resolve("a"), "unix:ino"), attributes.fileid());
        assertArrayEquals(root, client.lookup(root, "."));
        assertArrayEquals(root, client.lookup(root, ".."), "the export root is its own parent");
        XdrReader missing = client.nfs(Nfs3.NFSPROC3_LOOKUP, out -> XdrArgs.dirop(out, root, "nope")).reader();
        assertStatus(Nfs3.NFS3ERR_NOENT, missing.readInt(), "LOOKUP nope");
        assertNotNull(missing.readPostOpAttr(), "failure carries the directory's attributes");
        assertStatus(Nfs3.NFS3ERR_NOTDIR, client.nfs(Nfs3.NFSPROC3_LOOKUP,
                out -> XdrArgs.dirop(out, a, "x")).status(), "LOOKUP in a file");
    }

    @Test
    void createGuardedUncheckedAndExclusive() throws IOException {
        byte[] file = client.create(root, "g", 0640);
        XdrReader.Fattr attributes = client.getattr(file);
        assertEquals(0640, attributes.mode());
        assertEquals(owner, attributes.uid(), "owned by the caller");
        assertEquals(group, attributes.gid());
        assertStatus(Nfs3.NFS3ERR_EXIST, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "g");
            out.xdrEncodeInt(Nfs3.GUARDED);
            XdrArgs.sattrMode(out, 0600);
        }).status(), "GUARDED over an existing file");

        client.write(file, 0, new byte[] {1, 2, 3}, Nfs3.FILE_SYNC);
        XdrReader unchecked = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "g");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattr(out, -1, -1, -1, 0);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, unchecked.readInt(), "UNCHECKED over an existing file");
        assertEquals(0, Files.size(exportDir.resolve("g")), "UNCHECKED applied size 0");

        XdrArgs exclusive = out -> {
            XdrArgs.dirop(out, root, "x");
            out.xdrEncodeInt(Nfs3.EXCLUSIVE);
            out.xdrEncodeLong(0x0123456789abcdefL);
        };
        XdrReader first = client.nfs(Nfs3.NFSPROC3_CREATE, exclusive).reader();
        assertStatus(Nfs3.NFS3_OK, first.readInt(), "EXCLUSIVE");
        byte[] handle = first.readPostOpHandle();
        XdrReader retry = client.nfs(Nfs3.NFSPROC3_CREATE, exclusive).reader();
        assertStatus(Nfs3.NFS3_OK, retry.readInt(), "EXCLUSIVE retransmitted with the same verifier");
        assertArrayEquals(handle, retry.readPostOpHandle());
        assertStatus(Nfs3.NFS3ERR_EXIST, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "x");
            out.xdrEncodeInt(Nfs3.EXCLUSIVE);
            out.xdrEncodeLong(42);
        }).status(), "EXCLUSIVE with another verifier");
    }

    @Test
    void createReturnsWeakCacheConsistencyOfTheDirectory() throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "w");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 0600);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "CREATE");
        assertNotNull(reply.readPostOpHandle());
        assertNotNull(reply.readPostOpAttr());
        XdrReader.Wcc wcc = reply.readWcc();
        assertNotNull(wcc.before(), "pre-op attributes");
        assertNotNull(wcc.after(), "post-op attributes");
        assertTrue(wcc.after().ctime() >= wcc.before().ctime());
    }

    @Test
    void mkdirSymlinkReadlinkAndMknod() throws IOException {
        byte[] dir = client.mkdir(root, "d", 0750);
        XdrReader.Fattr attributes = client.getattr(dir);
        assertEquals(Nfs3.NF3DIR, attributes.type());
        assertEquals(0750, attributes.mode());

        XdrReader symlink = client.nfs(Nfs3.NFSPROC3_SYMLINK, out -> {
            XdrArgs.dirop(out, dir, "s");
            XdrArgs.sattrMode(out, -1);
            XdrArgs.string(out, "../target/file");
        }).reader();
        assertStatus(Nfs3.NFS3_OK, symlink.readInt(), "SYMLINK");
        byte[] link = symlink.readPostOpHandle();
        assertEquals(Nfs3.NF3LNK, client.getattr(link).type());
        XdrReader readlink = client.nfs(Nfs3.NFSPROC3_READLINK, out -> out.xdrEncodeDynamicOpaque(link)).reader();
        assertStatus(Nfs3.NFS3_OK, readlink.readInt(), "READLINK");
        readlink.readPostOpAttr();
        assertEquals("../target/file", readlink.readString());
        assertStatus(Nfs3.NFS3ERR_INVAL, client.nfs(Nfs3.NFSPROC3_READLINK,
                out -> out.xdrEncodeDynamicOpaque(dir)).status(), "READLINK of a directory");

        XdrReader mknod = client.nfs(Nfs3.NFSPROC3_MKNOD, out -> {
            XdrArgs.dirop(out, dir, "fifo");
            out.xdrEncodeInt(Nfs3.NF3FIFO);
            XdrArgs.sattrMode(out, 0600);
        }).reader();
        assertStatus(Nfs3.NFS3ERR_NOTSUPP, mknod.readInt(), "MKNOD");
        XdrReader.Wcc wcc = mknod.readWcc();
        assertNotNull(wcc.before(), "MKNOD failure carries the directory's wcc_data");
        assertFalse(Files.exists(exportDir.resolve("d/fifo"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void removeAndRmdirWithTheirTypeChecks() throws IOException {
        client.create(root, "f", 0644);
        byte[] dir = client.mkdir(root, "d", 0755);
        client.create(dir, "inner", 0644);
        assertStatus(Nfs3.NFS3ERR_ISDIR, client.nfs(Nfs3.NFSPROC3_REMOVE,
                out -> XdrArgs.dirop(out, root, "d")).status(), "REMOVE of a directory");
        assertStatus(Nfs3.NFS3ERR_NOTDIR, client.nfs(Nfs3.NFSPROC3_RMDIR,
                out -> XdrArgs.dirop(out, root, "f")).status(), "RMDIR of a file");
        assertStatus(Nfs3.NFS3ERR_NOTEMPTY, client.nfs(Nfs3.NFSPROC3_RMDIR,
                out -> XdrArgs.dirop(out, root, "d")).status(), "RMDIR of a non-empty directory");
        assertStatus(Nfs3.NFS3ERR_INVAL, client.nfs(Nfs3.NFSPROC3_RMDIR,
                out -> XdrArgs.dirop(out, dir, ".")).status(), "RMDIR .");
        XdrReader removed = client.nfs(Nfs3.NFSPROC3_REMOVE, out -> XdrArgs.dirop(out, dir, "inner")).reader();
        assertStatus(Nfs3.NFS3_OK, removed.readInt(), "REMOVE");
        assertNotNull(removed.readWcc().after());
        assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_RMDIR,
                out -> XdrArgs.dirop(out, root, "d")).status(), "RMDIR");
        assertStatus(Nfs3.NFS3ERR_STALE, client.nfs(Nfs3.NFSPROC3_GETATTR,
                out -> out.xdrEncodeDynamicOpaque(dir)).status(), "handle of a removed directory");
        assertStatus(Nfs3.NFS3ERR_NOENT, client.nfs(Nfs3.NFSPROC3_REMOVE,
                out -> XdrArgs.dirop(out, root, "gone")).status(), "REMOVE of nothing");
    }

    @Test
    void renameMovesFilesAndDirectoriesAndKeepsHandles() throws IOException {
        byte[] a = client.mkdir(root, "a", 0755);
        byte[] b = client.mkdir(root, "b", 0755);
        byte[] file = client.create(a, "f", 0644);
        XdrReader moved = client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            XdrArgs.dirop(out, a, "f");
            XdrArgs.dirop(out, b, "g");
        }).reader();
        assertStatus(Nfs3.NFS3_OK, moved.readInt(), "RENAME");
        assertNotNull(moved.readWcc().before());
        assertNotNull(moved.readWcc().after());
        assertTrue(Files.exists(exportDir.resolve("b/g")));
        assertEquals(Nfs3.NF3REG, client.getattr(file).type(), "the handle survives the rename");

        client.mkdir(a, "sub", 0755);
        assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            XdrArgs.dirop(out, root, "a");
            XdrArgs.dirop(out, b, "a2");
        }).status(), "RENAME of a directory");
        byte[] sub = client.lookup(client.lookup(b, "a2"), "sub");
        assertEquals(Nfs3.NF3DIR, client.getattr(sub).type());
        assertStatus(Nfs3.NFS3ERR_INVAL, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            XdrArgs.dirop(out, root, "b");
            XdrArgs.dirop(out, sub, "b");
        }).status(), "RENAME of a directory below itself");
        assertStatus(Nfs3.NFS3ERR_ISDIR, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            XdrArgs.dirop(out, b, "g");
            XdrArgs.dirop(out, b, "a2");
        }).status(), "a file cannot replace a directory");
    }

    @Test
    void linkAddsASecondName() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        byte[] dir = client.mkdir(root, "d", 0755);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_LINK, out -> {
            out.xdrEncodeDynamicOpaque(file);
            XdrArgs.dirop(out, dir, "hard");
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "LINK");
        assertEquals(2, reply.readPostOpAttr().nlink());
        assertNotNull(reply.readWcc().after());
        assertEquals(Files.getAttribute(exportDir.resolve("f"), "unix:ino"),
                Files.getAttribute(exportDir.resolve("d/hard"), "unix:ino"));
        assertStatus(Nfs3.NFS3ERR_ISDIR, client.nfs(Nfs3.NFSPROC3_LINK, out -> {
            out.xdrEncodeDynamicOpaque(dir);
            XdrArgs.dirop(out, root, "dirlink");
        }).status(), "LINK of a directory");
        assertStatus(Nfs3.NFS3ERR_EXIST, client.nfs(Nfs3.NFSPROC3_LINK, out -> {
            out.xdrEncodeDynamicOpaque(file);
            XdrArgs.dirop(out, dir, "hard");
        }).status(), "LINK over an existing name");
    }

    @Test
    void invalidNamesAreRefusedWithTheirCodes() throws IOException {
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_LOOKUP,
                out -> XdrArgs.dirop(out, root, "a/b")).status(), "a name with '/'");
        assertStatus(Nfs3.NFS3ERR_ACCES, client.nfs(Nfs3.NFSPROC3_LOOKUP,
                out -> XdrArgs.dirop(out, root, "")).status(), "an empty name");
        assertStatus(Nfs3.NFS3ERR_NAMETOOLONG, client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "n".repeat(256));
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 0644);
        }).status(), "a 256-byte name");
        client.mkdir(root, "ok", 0755);
        assertStatus(Nfs3.NFS3ERR_EXIST, client.nfs(Nfs3.NFSPROC3_MKDIR, out -> {
            XdrArgs.dirop(out, root, "..");
            XdrArgs.sattrMode(out, 0755);
        }).status(), "MKDIR ..");
        assertStatus(Nfs3.NFS3ERR_INVAL, client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            XdrArgs.dirop(out, root, "ok");
            XdrArgs.dirop(out, root, ".");
        }).status(), "RENAME to .");
    }

    @Test
    void unicodeNamesTravelAsUtf8() throws IOException {
        String name = "\u00fcn\u00efc\u00f8d\u00e9-\u6587\u4ef6";
        byte[] file = client.create(root, name, 0644);
        assertTrue(Files.exists(exportDir.resolve(name)), "created under its Unicode name");
        assertArrayEquals(file, client.lookup(root, name));
    }

    @Test
    void uncheckedCreateOverAnotherUsersFileOnlyTruncates() throws IOException {
        byte[] file = client.create(root, "shared", 0664);
        client.write(file, 0, new byte[10], Nfs3.FILE_SYNC);
        client.as(owner + 1, group);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "shared");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattr(out, 0600, -1, -1, 0);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "UNCHECKED by a group member with write permission");
        XdrReader.Fattr attributes = client.getattr(file);
        assertEquals(0, attributes.size(), "truncated as by O_TRUNC");
        assertEquals(0664, attributes.mode(), "the mode of an existing file is left alone");
        assertEquals(owner, attributes.uid());
    }
}
