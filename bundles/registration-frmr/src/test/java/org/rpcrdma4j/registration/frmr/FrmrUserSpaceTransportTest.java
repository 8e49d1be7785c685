package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with FRMR on a device without fast registration (user-space verbs, as
 * DiSNI): each sink registered before its READ and deregistered after it.
 */
class FrmrUserSpaceTransportTest extends FrmrTransportTest {
    static final DeviceCapabilities USER_SPACE = new DeviceCapabilities(TransportType.ROCE, 8, 8, 8, 64, 4096, 16384, 16, 16,
            false, false, 0);

    @Override
    protected DeviceCapabilities capabilities() {
        return USER_SPACE;
    }
}
