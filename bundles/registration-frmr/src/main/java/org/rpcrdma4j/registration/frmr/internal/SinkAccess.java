package org.rpcrdma4j.registration.frmr.internal;

import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ProtectionDomain;

/** SinkAccess - the access a READ sink needs on a device: local write, plus remote write on iWARP. */
final class SinkAccess {
    private SinkAccess() {
    }

    static int of(ProtectionDomain pd) {
        int access = Access.LOCAL_WRITE;
        if (pd.device().capabilities().transportType().readSinkRequiresRemoteWrite()) {
            access |= Access.REMOTE_WRITE;
        }
        return access;
    }
}
