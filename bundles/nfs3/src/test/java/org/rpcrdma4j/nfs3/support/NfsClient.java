package org.rpcrdma4j.nfs3.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.rpcrdma4j.nfs3.Mount3;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * NfsClient - oncrpc4j's client speaking NFSv3 and MOUNT v3 to a {@link TestServer} with an
 * AUTH_SYS identity, plus the few compound helpers the tests share.
 */
public final class NfsClient implements AutoCloseable {

    private final OncRpcClient client;
    private final RpcTransport transport;
    private RpcAuth auth;

    public NfsClient(int port, int uid, int gid, int... gids) throws IOException {
        client = new OncRpcClient(InetAddress.getByName("127.0.0.1"), IpProtocolType.TCP, port);
        transport = client.connect();
        as(uid, gid, gids);
    }

    /** Switches the AUTH_SYS identity of later calls. */
    public NfsClient as(int uid, int gid, int... gids) {
        auth = new RpcAuthTypeUnix(uid, gid, gids, (int) (System.currentTimeMillis() / 1000), "test");
        return this;
    }

    /** Switches to an arbitrary credential (e.g. AUTH_NONE). */
    public NfsClient as(RpcAuth credential) {
        auth = credential;
        return this;
    }

    /** Calls an NFSv3 procedure. */
    public NfsReply nfs(int procedure, XdrArgs args) throws IOException {
        return call(Nfs3.PROGRAM, Nfs3.VERSION, procedure, args);
    }

    /** Calls a MOUNT v3 procedure. */
    public NfsReply mount(int procedure, XdrArgs args) throws IOException {
        return call(Mount3.PROGRAM, Mount3.VERSION, procedure, args);
    }

    /** Calls any program. */
    public NfsReply call(int program, int version, int procedure, XdrArgs args) throws IOException {
        NfsReply reply = new NfsReply();
        try {
            new RpcCall(program, version, auth, transport).call(procedure, args, reply, 20, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IOException("no reply to " + Nfs3.procedureName(procedure), e);
        }
        return reply;
    }

    /** MNT of a path; asserts MNT3_OK and returns the root handle. */
    public byte[] mountRoot(String path) throws IOException {
        XdrReader reply = mount(Mount3.MOUNTPROC3_MNT, out -> XdrArgs.string(out, path)).reader();
        assertEquals(Mount3.MNT3_OK, reply.readInt(), "MNT " + path);
        return reply.readOpaque();
    }

    /** LOOKUP; asserts NFS3_OK and returns the handle. */
    public byte[] lookup(byte[] dir, String name) throws IOException {
        XdrReader reply = nfs(Nfs3.NFSPROC3_LOOKUP, out -> XdrArgs.dirop(out, dir, name)).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "LOOKUP " + name);
        return reply.readOpaque();
    }

    /** GETATTR; asserts NFS3_OK. */
    public XdrReader.Fattr getattr(byte[] handle) throws IOException {
        XdrReader reply = nfs(Nfs3.NFSPROC3_GETATTR, out -> out.xdrEncodeDynamicOpaque(handle)).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "GETATTR");
        return reply.readFattr();
    }

    /** CREATE GUARDED with a mode; asserts NFS3_OK and returns the handle. */
    public byte[] create(byte[] dir, String name, int mode) throws IOException {
        XdrReader reply = nfs(Nfs3.NFSPROC3_CREATE, out -> {
            XdrArgs.dirop(out, dir, name);
            out.xdrEncodeInt(Nfs3.GUARDED);
            XdrArgs.sattrMode(out, mode);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "CREATE " + name);
        return reply.readPostOpHandle();
    }

    /** MKDIR with a mode; asserts NFS3_OK and returns the handle. */
    public byte[] mkdir(byte[] dir, String name, int mode) throws IOException {
        XdrReader reply = nfs(Nfs3.NFSPROC3_MKDIR, out -> {
            XdrArgs.dirop(out, dir, name);
            XdrArgs.sattrMode(out, mode);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "MKDIR " + name);
        return reply.readPostOpHandle();
    }

    /** WRITE FILE_SYNC; returns the reply. */
    public NfsReply write(byte[] file, long offset, byte[] data, int stable) throws IOException {
        return nfs(Nfs3.NFSPROC3_WRITE, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeLong(offset);
            out.xdrEncodeInt(data.length);
            out.xdrEncodeInt(stable);
            out.xdrEncodeDynamicOpaque(data);
        });
    }

    /** READ; returns the reply. */
    public NfsReply read(byte[] file, long offset, int count) throws IOException {
        return nfs(Nfs3.NFSPROC3_READ, out -> {
            out.xdrEncodeDynamicOpaque(file);
            out.xdrEncodeLong(offset);
            out.xdrEncodeInt(count);
        });
    }

    /** Asserts an nfsstat3 with both names in the message. */
    public static void assertStatus(int expected, int actual, String what) {
        assertEquals(Nfs3.statusName(expected), Nfs3.statusName(actual), what);
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
