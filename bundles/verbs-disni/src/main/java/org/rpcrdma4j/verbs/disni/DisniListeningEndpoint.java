package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.verbs.RdmaCmId;
import java.net.InetSocketAddress;
import org.rpcrdma4j.verbs.ListeningEndpoint;

/** A bound, listening DiSNI id; closing destroys the id (rdma_destroy_id). */
final class DisniListeningEndpoint implements ListeningEndpoint {
    private final DisniConnectionManager manager;
    private final RdmaCmId id;
    private final long handle;
    private final InetSocketAddress localAddress;
    private boolean closed;

    DisniListeningEndpoint(DisniConnectionManager manager, RdmaCmId id, long handle, InetSocketAddress localAddress) {
        this.manager = manager;
        this.id = id;
        this.handle = handle;
        this.localAddress = localAddress;
    }

    long handle() {
        return handle;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        manager.destroy(handle, id);
    }

    @Override
    public String toString() {
        return "DisniListeningEndpoint[" + localAddress + "]";
    }
}
