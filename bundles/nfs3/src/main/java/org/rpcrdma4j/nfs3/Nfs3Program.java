package org.rpcrdma4j.nfs3;

import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.nfs3.internal.Nfs3Dispatcher;

/**
 * Nfs3Program - the NFSv3 program (100003 v3) of an {@link NfsExportService}: every procedure
 * of RFC 1813, MKNOD answering NFS3ERR_NOTSUPP.
 *
 * <p>Thread-safe: calls may be dispatched concurrently from any number of worker threads.
 * Every call gets a reply; failures are nfsstat3 codes, never exceptions or stack traces.
 */
public final class Nfs3Program implements RpcDispatchable {

    private final Nfs3Dispatcher dispatcher;

    Nfs3Program(Nfs3Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) {
        dispatcher.dispatch(call);
    }
}
