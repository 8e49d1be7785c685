package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs3.support.ServerTestBase;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/** NULL, GETATTR, SETATTR (with guard), ACCESS, FSSTAT, FSINFO, PATHCONF. */
class AttributeProceduresTest extends ServerTestBase {

    @Test
    void nullAnswersWithAnEmptyResult() throws IOException {
        assertEquals(0, client.nfs(Nfs3.NFSPROC3_NULL, out -> { }).size());
        assertEquals(0, client.mount(Mount3.MOUNTPROC3_NULL, out -> { }).size());
    }

    @Test
    void getattrMatchesTheFileSystem() throws IOException {
        Files.write(exportDir.resolve("f"), new byte[5000]);
        XdrReader.Fattr a = client.getattr(client.lookup(root, "f"));
        assertEquals(Nfs3.NF3REG, a.type());
        assertEquals(5000, a.size());
        assertEquals(8192, a.used(), "size rounded up to 4 KiB");
        assertEquals(Files.getAttribute(exportDir.resolve("f"), "unix:ino"), a.fileid());
        assertEquals(Files.getAttribute(exportDir.resolve("f"), "unix:dev"), a.fsid());
        assertEquals(1, a.nlink());
        FileTime mtime = Files.getLastModifiedTime(exportDir.resolve("f"), LinkOption.NOFOLLOW_LINKS);
        assertEquals(mtime.to(TimeUnit.NANOSECONDS), a.mtime());
        XdrReader.Fattr dir = client.getattr(root);
        assertEquals(Nfs3.NF3DIR, dir.type());
        assertEquals(owner, dir.uid());
    }

    @Test
    void setattrChangesModeSizeAndTimesWithWcc() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        client.write(file, 0, new byte[100], Nfs3.FILE_SYNC);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeBoolean(true);
            out.xdrEncodeInt(0600);
            out.xdrEncodeBoolean(false);
            out.xdrEncodeBoolean(false);
            out.xdrEncodeBoolean(true);
            out.xdrEncodeLong(10);
            out.xdrEncodeInt(Nfs3.SET_TO_CLIENT_TIME);
            out.xdrEncodeInt(1_000_000);
            out.xdrEncodeInt(5);
            out.xdrEncodeInt(Nfs3.SET_TO_CLIENT_TIME);
            out.xdrEncodeInt(2_000_000);
            out.xdrEncodeInt(7);
            out.xdrEncodeBoolean(false);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "SETATTR");
        XdrReader.Wcc wcc = reply.readWcc();
        assertEquals(100, wcc.before().size());
        assertEquals(10, wcc.after().size());
        assertEquals(0600, wcc.after().mode());
        assertEquals(1_000_000L * 1_000_000_000L + 5, wcc.after().atime());
        assertEquals(2_000_000L * 1_000_000_000L + 7, wcc.after().mtime());

        XdrReader extend = client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(file);
            XdrArgs.sattr(out, -1, -1, -1, 1 << 20);
            out.xdrEncodeBoolean(false);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, extend.readInt(), "SETATTR size up");
        assertEquals(1 << 20, Files.size(exportDir.resolve("f")));
    }

    @Test
    void setattrGuardMismatchIsNotSync() throws IOException {
        byte[] file = client.create(root, "f", 0644);
        XdrReader.Fattr a = client.getattr(file);
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(file);
            XdrArgs.sattrMode(out, 0600);
            out.xdrEncodeBoolean(true);
            out.xdrEncodeInt((int) (a.ctime() / 1_000_000_000L) - 1);
            out.xdrEncodeInt(0);
        }).reader();
        assertStatus(Nfs3.NFS3ERR_NOT_SYNC, reply.readInt(), "guard with a wrong ctime");
        assertNotNull(reply.readWcc().before(), "failure carries wcc_data");
        assertEquals(0644, client.getattr(file).mode(), "nothing changed");
        assertStatus(Nfs3.NFS3_OK, client.nfs(Nfs3.NFSPROC3_SETATTR, out -> {
            out.xdrEncodeDynamicOpaque(file);
            XdrArgs.sattrMode(out, 0600);
            out.xdrEncodeBoolean(true);
            out.xdrEncodeInt((int) (a.ctime() / 1_000_000_000L));
            out.xdrEncodeInt((int) (a.ctime() % 1_000_000_000L));
        }).status(), "guard with the right ctime");
        assertEquals(0600, client.getattr(file).mode());
    }

    @Test
    void accessReportsWhatTheModeBitsGrant() throws IOException {
        byte[] file = client.create(root, "f", 0640);
        int all = Nfs3.ACCESS3_READ | Nfs3.ACCESS3_LOOKUP | Nfs3.ACCESS3_MODIFY | Nfs3.ACCESS3_EXTEND
                | Nfs3.ACCESS3_DELETE | Nfs3.ACCESS3_EXECUTE;
        assertEquals(Nfs3.ACCESS3_READ | Nfs3.ACCESS3_MODIFY | Nfs3.ACCESS3_EXTEND, access(file, all), "owner rw-");
        assertEquals(all & ~Nfs3.ACCESS3_EXECUTE, access(root, all), "owner of the directory");
        client.as(owner + 1, group);
        assertEquals(Nfs3.ACCESS3_READ, access(file, all), "group r--");
        client.as(owner + 1, group + 1);
        assertEquals(0, access(file, all), "others ---");
    }

    private int access(byte[] handle, int asked) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_ACCESS, out -> {
            out.xdrEncodeDynamicOpaque(handle);
            out.xdrEncodeInt(asked);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "ACCESS");
        assertNotNull(reply.readPostOpAttr());
        return reply.readInt();
    }

    @Test
    void fsstatFsinfoAndPathconfDescribeTheFileSystem() throws IOException {
        XdrReader fsstat = client.nfs(Nfs3.NFSPROC3_FSSTAT, out -> out.xdrEncodeDynamicOpaque(root)).reader();
        assertStatus(Nfs3.NFS3_OK, fsstat.readInt(), "FSSTAT");
        fsstat.readPostOpAttr();
        long total = fsstat.readLong();
        long free = fsstat.readLong();
        long available = fsstat.readLong();
        assertEquals(Files.getFileStore(exportDir).getTotalSpace(), total);
        assertTrue(free <= total && available <= free, "free within total, available within free");

        XdrReader fsinfo = client.nfs(Nfs3.NFSPROC3_FSINFO, out -> out.xdrEncodeDynamicOpaque(root)).reader();
        assertStatus(Nfs3.NFS3_OK, fsinfo.readInt(), "FSINFO");
        fsinfo.readPostOpAttr();
        assertEquals(1024 * 1024, fsinfo.readInt(), "rtmax: 1 MiB, as knfsd");
        assertEquals(1024 * 1024, fsinfo.readInt(), "rtpref");
        fsinfo.readInt();
        assertEquals(1024 * 1024, fsinfo.readInt(), "wtmax");
        assertEquals(1024 * 1024, fsinfo.readInt(), "wtpref");
        fsinfo.readInt();
        fsinfo.readInt();
        assertEquals(Long.MAX_VALUE, fsinfo.readLong(), "maxfilesize");
        assertEquals(1, fsinfo.readTime(), "time_delta");
        assertEquals(Nfs3.FSF3_LINK | Nfs3.FSF3_SYMLINK | Nfs3.FSF3_HOMOGENEOUS | Nfs3.FSF3_CANSETTIME,
                fsinfo.readInt());

        XdrReader pathconf = client.nfs(Nfs3.NFSPROC3_PATHCONF, out -> out.xdrEncodeDynamicOpaque(root)).reader();
        assertStatus(Nfs3.NFS3_OK, pathconf.readInt(), "PATHCONF");
        pathconf.readPostOpAttr();
        pathconf.readInt();
        assertEquals(255, pathconf.readInt(), "name_max");
        assertTrue(pathconf.readBool(), "no_trunc");
        assertTrue(pathconf.readBool(), "chown_restricted");
        assertEquals(false, pathconf.readBool(), "case_insensitive");
        assertTrue(pathconf.readBool(), "case_preserving");
    }
}
