package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * Set-user-ID and set-group-ID bits follow Linux: a new object in a set-group-ID directory
 * gets set-group-ID only if its creator is in the directory's group (inode_init_owner;
 * directories always inherit it), chmod drops set-group-ID for a non-member (setattr_copy),
 * and WRITE or a size change by anyone but root clears set-user-ID, and set-group-ID when
 * group-execute is set (file_remove_privs).
 *
 * <p>Every test needs root: the server must be able to give files to users and groups other
 * than its own, and tests set up a directory owned by a group the caller is not in.
 */
class SetIdBitsTest extends ServerTestBase {

    /** A group neither the owner nor the stranger is in. */
    private static final int OTHER_GROUP = 3000;

    @BeforeEach
    void requireRoot() {
        assumeTrue(Identity.isRoot(), "needs root to give files to other users and groups");
    }

    /** A world-writable directory of OTHER_GROUP with set-group-ID, made behind the server's back. */
    private byte[] setgidDirectory(NfsClient as, byte[] parent, String name) throws IOException {
        byte[] handle = as.mkdir(parent, name, 0777);
        Path directory = exportDir.resolve(name);
        Files.setAttribute(directory, "unix:gid", OTHER_GROUP, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(directory, "unix:mode", 02777, LinkOption.NOFOLLOW_LINKS);
        return handle;
    }

    @Test
    void aNonMemberCreatingInASetgidDirectoryGetsNoSetgid() throws IOException {
        byte[] shared = setgidDirectory(client, root, "shared");
        client.as(Identity.STRANGER, Identity.STRANGER);

        XdrReader.Fattr file = client.getattr(client.create(shared, "f", 02755));
        assertEquals(OTHER_GROUP, file.gid(), "the file takes the directory's group");
        assertEquals(0755, file.mode(), "CREATE GUARDED: set-group-ID of a group the creator is not in is dropped");

        XdrReader unchecked = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, shared, "u");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattrMode(out, 02711);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, unchecked.readInt(), "CREATE UNCHECKED");
        assertEquals(0711, client.getattr(unchecked.readPostOpHandle()).mode(), "CREATE UNCHECKED drops it too");

        byte[] directory = client.mkdir(shared, "d", 02755);
        assertEquals(02755, client.getattr(directory).mode(), "a directory always inherits set-group-ID");
        assertEquals(OTHER_GROUP, client.getattr(directory).gid());

        byte[] plain = client.mkdir(shared, "plain", 0755);
        assertEquals(02755, client.getattr(plain).mode(), "even when the client asks for none");
    }

    @Test
    void chmodByANonMemberDropsSetgidOnFilesAndDirectories() throws IOException {
        byte[] shared = setgidDirectory(client, root, "shared");
        client.as(Identity.STRANGER, Identity.STRANGER);
        byte[] file = client.create(shared, "f", 0644);
        byte[] directory = client.mkdir(shared, "d", 0755);

        assertStatus(Nfs3.NFS3_OK, setattrMode(file, 06755), "chmod by the owner");
        assertEquals(04755, client.getattr(file).mode(), "set-user-ID stays, set-group-ID of a foreign group goes");
        assertStatus(Nfs3.NFS3_OK, setattrMode(directory, 02755), "chmod of a directory by its owner");
        assertEquals(0755, client.getattr(directory).mode(), "as Linux setattr_copy: directories too");
    }

    @Test
    void aMemberOfTheGroupKeepsSetgid() throws IOException {
        byte[] shared = setgidDirectory(client, root, "shared");
        client.as(Identity.STRANGER, Identity.STRANGER, OTHER_GROUP);
        byte[] file = client.create(shared, "f", 02755);
        assertEquals(02755, client.getattr(file).mode(), "the creator is in the directory's group");
        assertStatus(Nfs3.NFS3_OK, setattrMode(file, 02711), "chmod by a member");
        assertEquals(02711, client.getattr(file).mode());
    }

    @Test
    void rootWithoutSquashingKeepsEverySetIdBit() throws IOException {
        try (TestServer open = TestServer.start(temp.resolve("nrs-state"),
                TestServer.export(temp.resolve("nrs"), "127.0.0.1/32(rw,no_root_squash)"));
             NfsClient rootClient = new NfsClient(open.port(), 0, 0)) {
            byte[] exportRoot = rootClient.mountRoot("/export");
            byte[] shared = rootClient.mkdir(exportRoot, "shared", 0777);
            Path directory = temp.resolve("nrs/export/shared");
            Files.setAttribute(directory, "unix:gid", OTHER_GROUP, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(directory, "unix:mode", 02777, LinkOption.NOFOLLOW_LINKS);
            byte[] file = rootClient.create(shared, "f", 06755);
            assertEquals(06755, rootClient.getattr(file).mode(), "CAP_FSETID: root keeps set-group-ID");
            rootClient.write(file, 0, new byte[] {1}, Nfs3.FILE_SYNC);
            assertEquals(06755, rootClient.getattr(file).mode(), "root's WRITE clears nothing");
        }
    }

    @Test
    void writeClearsSetuidAndExecutableSetgid() throws IOException {
        byte[] program = client.create(root, "program", 06755);
        assertEquals(06755, client.getattr(program).mode(), "the owner's own group: kept at creation");
        XdrReader write = client.write(program, 0, new byte[] {1, 2, 3}, Nfs3.UNSTABLE).reader();
        assertStatus(Nfs3.NFS3_OK, write.readInt(), "WRITE by the owner");
        assertEquals(0755, write.readWcc().after().mode(), "the WRITE reply's post-op attributes show it");
        assertEquals(0755, client.getattr(program).mode(), "file_remove_privs: the owner's WRITE clears both");

        byte[] marked = client.create(root, "marked", 06644);
        client.write(marked, 0, new byte[] {1}, Nfs3.FILE_SYNC);
        assertEquals(02644, client.getattr(marked).mode(),
                "set-group-ID without group-execute (a locking mark) stays, set-user-ID goes");

        byte[] shared = client.create(root, "shared", 06777);
        client.as(Identity.STRANGER, Identity.STRANGER);
        assertStatus(Nfs3.NFS3_OK, client.write(shared, 0, new byte[] {1}, Nfs3.FILE_SYNC).status(),
                "WRITE by a non-owner with write permission");
        assertEquals(0777, client.getattr(shared).mode(), "a non-owner's WRITE clears both");

        client.as(owner, group);
        byte[] plain = client.create(root, "plain", 0666);
        client.write(plain, 0, new byte[] {1}, Nfs3.FILE_SYNC);
        assertEquals(0666, client.getattr(plain).mode(), "nothing to clear, nothing changed");
    }

    @Test
    void sizeChangesClearSetuidAndExecutableSetgid() throws IOException {
        byte[] program = client.create(root, "program", 06755);
        client.write(program, 0, new byte[10], Nfs3.FILE_SYNC);
        assertStatus(Nfs3.NFS3_OK, setattrMode(program, 06755), "set again");
        assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(program);
            XdrArgs.sattr(out, -1, -1, -1, 0);
            out.xdrEncodeBoolean(false);
        }).status(), "truncate");
        assertEquals(0755, client.getattr(program).mode(), "truncation clears both");

        byte[] shared = client.create(root, "shared", 06777);
        client.as(Identity.STRANGER, Identity.STRANGER);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, root, "shared");
            out.xdrEncodeInt(Nfs3.UNCHECKED);
            XdrArgs.sattr(out, 0600, -1, -1, 0);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "UNCHECKED CREATE over an existing file truncates it");
        assertEquals(0777, client.getattr(shared).mode(), "as open(O_TRUNC): both cleared");
    }

    private int setattrMode(byte[] handle, int mode) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(handle);
            XdrArgs.sattrMode(out, mode);
            out.xdrEncodeBoolean(false);
        }).status();
    }
}
