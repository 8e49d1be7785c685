package org.rpcrdma4j.nfs3.osgi;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.nfs3.NfsExportService;

/**
 * LiveExports - the NFS and MOUNT programs of the exports currently configured, behind two
 * programs that stay the same while the configuration changes.
 *
 * <p>{@link #apply} opens a new configuration as a whole and only then replaces the current
 * exports, so a refused configuration leaves the previous ones serving. Calls already running
 * finish on the exports they started on; later calls see the new ones. NFS and MOUNT always
 * switch together: both come from one {@link NfsExportService} (one key, one write verifier).
 *
 * <p>Threading: {@link #apply} MUST be called by one thread at a time (the component's lock);
 * the programs may be called from any thread.
 */
final class LiveExports {

    private volatile NfsExportService current;
    private final RpcDispatchable nfs = new Nfs3();
    private final RpcDispatchable mount = new Mount3();

    /**
     * Opens the configuration and, if it is good, serves it from now on.
     *
     * @return null when the configuration now serves, else why it was refused (naming the
     *     property and the fault); the previous exports then keep serving
     */
    String apply(ExportsConfig config) {
        NfsExportService next;
        try {
            next = ExportsOpener.open(config);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        } catch (IOException | RuntimeException e) {
            return "property " + ExportsConfig.STATE_DIRECTORY + " '" + config.stateDirectory()
                    + "': the file handle key cannot be opened: " + e;
        }
        NfsExportService previous = current;
        current = next;
        if (previous != null) {
            previous.close(); // its files: a call still running on it closes its own when done
        }
        return null;
    }

    /** close() - nothing serves any more: the current exports' open files are closed. */
    void close() {
        NfsExportService previous = current;
        current = null;
        if (previous != null) {
            previous.close();
        }
    }

    /** @return true once a configuration serves */
    boolean serving() {
        return current != null;
    }

    /** The NFSv3 program (100003 v3) of whatever exports serve at the time of each call. */
    RpcDispatchable nfsProgram() {
        return nfs;
    }

    /** The MOUNT v3 program (100005 v3) of whatever exports serve at the time of each call. */
    RpcDispatchable mountProgram() {
        return mount;
    }

    /** The NFSv3 program of the exports serving at the time of the call. */
    private final class Nfs3 implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            served().nfsProgram().dispatchOncRpcCall(call);
        }
    }

    /** The MOUNT v3 program of the exports serving at the time of the call. */
    private final class Mount3 implements RpcDispatchable {
        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            served().mountProgram().dispatchOncRpcCall(call);
        }
    }

    private NfsExportService served() {
        NfsExportService service = current;
        if (service == null) {
            throw new IllegalStateException("no exports configured");
        }
        return service;
    }
}
