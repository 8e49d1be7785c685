package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with FRMR sinks on an iWARP-like device with fast registration: REG_MR then
 * RDMA_READ_WITH_INV (no separate LOCAL_INV), sinks registered with REMOTE_WRITE.
 */
class FrmrIwarpTransportTest extends FrmrTransportTest {
    static final DeviceCapabilities IWARP_FRMR = new DeviceCapabilities(TransportType.IWARP, 4, 4, 1, 64, 1024, 4096, 8, 8,
            true, false, 1 << 20);

    @Override
    protected DeviceCapabilities capabilities() {
        return IWARP_FRMR;
    }
}
