package org.rpcrdma4j.registration.lkey;

import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with local-lkey sinks on an iWARP-like device: one SGE per READ (so one
 * page per READ) and READ sinks that need REMOTE_WRITE, which the loopback enforces.
 */
class LkeyIwarpTransportTest extends LkeyTransportTest {
    static final DeviceCapabilities IWARP = new DeviceCapabilities(TransportType.IWARP, 4, 4, 1, 64, 1024, 4096, 8, 8,
            false, false, 0);

    @Override
    protected DeviceCapabilities capabilities() {
        return IWARP;
    }
}
