package org.rpcrdma4j.nfs3;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.rpcrdma4j.nfs3.internal.MountDispatcher;
import org.rpcrdma4j.nfs3.internal.Nfs3Dispatcher;
import org.rpcrdma4j.nfs3.internal.NfsState;

/**
 * NfsExportService - serves local directories over NFSv3: the factory of the NFS and MOUNT
 * programs sharing one set of exports, one file handle key and one write verifier.
 *
 * <p>Usage with oncrpc4j's own TCP transport:
 * <pre>{@code
 * NfsExportService nfs = NfsExportService.open(
 *         List.of(Export.parse("/export /srv/data 10.0.0.0/8(rw)")), Path.of("/var/lib/rpcrdma4j"));
 * OncRpcSvc svc = new OncRpcSvcBuilder().withTCP().withPort(2049).withoutAutoPublish()
 *         .withRpcService(NfsExportService.NFS_PROGRAM, nfs.nfsProgram())
 *         .withRpcService(NfsExportService.MOUNT_PROGRAM, nfs.mountProgram())
 *         .build();
 * }</pre>
 *
 * <p>File handles: 40 bytes of (version, object type, export id, fsid, fileid) signed with
 * HMAC-SHA256 under a key kept in {@code stateDirectory/filehandle.key} (created 0600). They
 * stay valid across restarts; after a restart the server finds a handle's inode by walking
 * the export once. The programs are thread-safe; transports MUST report the real peer address
 * of each call, against which the export rules are checked on every call.
 */
public final class NfsExportService implements AutoCloseable {

    /** The program and version the NFS program serves. */
    public static final OncRpcProgram NFS_PROGRAM = new OncRpcProgram(Nfs3.PROGRAM, Nfs3.VERSION);
    /** The program and version the MOUNT program serves. */
    public static final OncRpcProgram MOUNT_PROGRAM = new OncRpcProgram(Mount3.PROGRAM, Mount3.VERSION);

    private final NfsState state;
    private final Nfs3Program nfs;
    private final Mount3Program mount;

    private NfsExportService(NfsState state) {
        this.state = state;
        this.nfs = new Nfs3Program(new Nfs3Dispatcher(state));
        this.mount = new Mount3Program(new MountDispatcher(state));
    }

    /**
     * Opens the exports.
     *
     * @param exports at least one; export paths must differ
     * @param stateDirectory absolute directory for the file handle key (created 0700 if absent)
     * @return the service
     * @throws IllegalArgumentException naming the setting if the configuration is invalid (no
     *     export, duplicate path, missing export directory, relative state directory)
     * @throws IOException if the key cannot be created or read, or is readable by others
     */
    public static NfsExportService open(List<Export> exports, Path stateDirectory) throws IOException {
        return new NfsExportService(new NfsState(exports, stateDirectory));
    }

    /** The NFSv3 program (100003 v3). */
    public Nfs3Program nfsProgram() {
        return nfs;
    }

    /** The MOUNT v3 program (100005 v3). */
    public Mount3Program mountProgram() {
        return mount;
    }

    /**
     * close() - these exports no longer serve (replaced, or stopped): the files READ, WRITE and
     * COMMIT kept open are closed (one a call still uses, when it is done with it).
     */
    @Override
    public void close() {
        state.openFiles().closeAll();
    }
}
