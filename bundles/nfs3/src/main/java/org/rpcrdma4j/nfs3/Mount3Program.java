package org.rpcrdma4j.nfs3;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.nfs3.internal.MountDispatcher;

/**
 * Mount3Program - the MOUNT v3 program (100005 v3) of an {@link NfsExportService}: NULL, MNT,
 * DUMP, UMNT, UMNTALL and EXPORT.
 *
 * <p>Thread-safe. MNT refuses peers no export rule admits with MNT3ERR_ACCES.
 */
public final class Mount3Program implements RpcDispatchable {

    private final MountDispatcher dispatcher;

    Mount3Program(MountDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) {
        dispatcher.dispatch(call);
    }
}
