package org.rpcrdma4j.itests.nfs3;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.dcache.oncrpc4j.rpc.OncRpcAcceptedException;
import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrString;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.rpcrdma4j.itests.support.KarafTestSupport;
import org.rpcrdma4j.server.HostedTransport;

/**
 * The embedded NFSv3 program in Karaf: configured through {@code etc/org.rpcrdma4j.nfs3.cfg},
 * it joins the host server's whiteboard and answers MOUNT and NFS calls over TCP for a
 * directory made by the test, through oncrpc4j's real client.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class NfsExportIT extends KarafTestSupport {

    private static final int MOUNT = 100005;
    private static final int NFS = 100003;
    private static final int MOUNTPROC3_MNT = 1;
    private static final int NFSPROC3_GETATTR = 1;
    private static final int NF3DIR = 2;

    @Override
    protected String[] bootFeatures() {
        return new String[] {"rpcrdma4j-server", "rpcrdma4j-nfs3"};
    }

    @Override
    protected Option[] extraOptions() {
        File export = new File("target/nfs-export").getAbsoluteFile();
        File state = new File("target/nfs-state").getAbsoluteFile();
        try {
            Files.createDirectories(export.toPath());
            Files.createDirectories(state.toPath());
            Files.writeString(export.toPath().resolve("hello.txt"), "hello from Karaf", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare the export directory " + export, e);
        }
        return new Option[] {
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "port", "0"),
            editConfigurationFilePut("etc/org.rpcrdma4j.server.tcp.cfg", "bindAddress", "127.0.0.1"),
            editConfigurationFilePut("etc/org.rpcrdma4j.nfs3.cfg", "exports",
                    "/export " + export + " 127.0.0.1/32(rw,no_root_squash)"),
            editConfigurationFilePut("etc/org.rpcrdma4j.nfs3.cfg", "stateDirectory", state.toString()),
        };
    }

    @Test
    public void mountAndGetattrThroughTheHostServer() throws Exception {
        HostedTransport tcp = awaitService(HostedTransport.class,
                t -> "tcp".equals(t.name()) && t.localAddress() != null, 60);
        InetSocketAddress address = tcp.localAddress();
        try (OncRpcClient client = new OncRpcClient(InetAddress.getLoopbackAddress(), IpProtocolType.TCP,
                address.getPort())) {
            RpcTransport transport = client.connect();
            RpcAuthTypeUnix root = new RpcAuthTypeUnix(0, 0, new int[] {0}, 0, "itest");

            // MOUNT v3 MNT "/export": fhs_status, fhandle3, auth flavors.
            MountResult mounted = new MountResult();
            mountOnceServed(transport, root, mounted);
            assertEquals("MNT3_OK", 0, mounted.status);
            assertTrue("a file handle of 1..64 bytes", mounted.handle.length > 0 && mounted.handle.length <= 64);

            // NFSv3 GETATTR of the root handle: NFS3_OK and a directory.
            Getattr attributes = new Getattr();
            new RpcCall(NFS, 3, root, transport).call(NFSPROC3_GETATTR, new Handle(mounted.handle), attributes);
            assertEquals("NFS3_OK", 0, attributes.status);
            assertEquals("the export root is a directory", NF3DIR, attributes.type);
        }
    }

    /**
     * MOUNT once the program is served: the TCP transport can be up before the NFS component has
     * read etc/org.rpcrdma4j.nfs3.cfg and registered its programs (fileinstall polls etc/ every
     * 5 s in the assembly), and until then the host answers PROG_UNAVAIL.
     */
    private static void mountOnceServed(RpcTransport transport, RpcAuthTypeUnix auth, MountResult result)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                new RpcCall(MOUNT, 3, auth, transport).call(MOUNTPROC3_MNT, new XdrString("/export"), result);
                return;
            } catch (OncRpcAcceptedException e) {
                if (!"PROG_UNAVAIL".equals(e.getMessage()) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** mountres3: status, then on success a variable-length handle and a list of auth flavors. */
    private static final class MountResult implements XdrAble {
        int status = -1;
        byte[] handle = new byte[0];

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            if (status == 0) {
                handle = xdr.xdrDecodeDynamicOpaque();
                int flavors = xdr.xdrDecodeInt();
                for (int i = 0; i < flavors; i++) {
                    xdr.xdrDecodeInt();
                }
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("decode only");
        }
    }

    /** nfs_fh3 as an argument. */
    private static final class Handle implements XdrAble {
        private final byte[] handle;

        Handle(byte[] handle) {
            this.handle = handle;
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(handle);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException("encode only");
        }
    }

    /** GETATTR3res: status, then fattr3 whose first word is the file type. */
    private static final class Getattr implements XdrAble {
        int status = -1;
        int type = -1;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            status = xdr.xdrDecodeInt();
            if (status == 0) {
                type = xdr.xdrDecodeInt();
                // The rest of fattr3 (20 more words) is not examined here.
                for (int i = 0; i < 20; i++) {
                    xdr.xdrDecodeInt();
                }
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException("decode only");
        }
    }
}
