package org.rpcrdma4j.nfs3.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.NfsExportService;

/**
 * TestServer - the NFS and MOUNT programs over oncrpc4j's own TCP on 127.0.0.1, one port for
 * both, exporting directories of a test's temporary folder.
 */
public final class TestServer implements AutoCloseable {

    private final OncRpcSvc svc;
    private final int port;

    private TestServer(OncRpcSvc svc, int port) {
        this.svc = svc;
        this.port = port;
    }

    /** Starts a server for the exports, keeping its key in {@code state}. */
    public static TestServer start(Path state, Export... exports) throws IOException {
        NfsExportService service = NfsExportService.open(List.of(exports), state);
        return start(service.nfsProgram(), service.mountProgram());
    }

    /** Starts a server for given NFS and MOUNT programs. */
    public static TestServer start(RpcDispatchable nfs, RpcDispatchable mount) throws IOException {
        OncRpcSvc svc = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1")
                .withoutAutoPublish().withWorkerThreadPoolSize(4).withSelectorThreadPoolSize(1)
                .withServiceName("nfs3-test")
                .withRpcService(NfsExportService.NFS_PROGRAM, nfs)
                .withRpcService(NfsExportService.MOUNT_PROGRAM, mount)
                .build();
        svc.start();
        InetSocketAddress address = svc.getInetSocketAddress(IpProtocolType.TCP);
        return new TestServer(svc, address.getPort());
    }

    /** The export {@code /export} of a fresh directory {@code root/export} for the given rules. */
    public static Export export(Path root, String... rules) throws IOException {
        Path directory = Files.createDirectories(root.resolve("export"));
        List<String> line = new ArrayList<>(List.of("/export", directory.toString()));
        line.addAll(List.of(rules));
        return Export.parse(String.join(" ", line));
    }

    /** The TCP port of both programs. */
    public int port() {
        return port;
    }

    @Override
    public void close() throws IOException {
        svc.stop();
    }
}
