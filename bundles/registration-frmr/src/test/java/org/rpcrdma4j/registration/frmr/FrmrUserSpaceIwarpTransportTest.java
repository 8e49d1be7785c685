package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with FRMR on an iWARP device without fast registration (user-space verbs,
 * as DiSNI over siw): the Read Request shows the sink's STag to the peer, so each window is
 * registered with remote write just before its READ and deregistered when the READ completes;
 * nothing stays registered while idle.
 */
class FrmrUserSpaceIwarpTransportTest extends FrmrTransportTest {
    static final DeviceCapabilities USER_SPACE_IWARP = new DeviceCapabilities(TransportType.IWARP, 8, 8, 1, 64, 4096, 16384, 16,
            16, false, false, 0);

    @Override
    protected DeviceCapabilities capabilities() {
        return USER_SPACE_IWARP;
    }

    @Override
    protected int idleRegistrationsAtMost(TransportConfig config, DeviceCapabilities caps) {
        return 0;
    }
}
