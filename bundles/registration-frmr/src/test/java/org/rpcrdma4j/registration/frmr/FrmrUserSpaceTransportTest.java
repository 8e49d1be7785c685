package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with FRMR on a RoCE device without fast registration (user-space verbs, as
 * DiSNI over rxe): each sink window registered for local write on its first READ and kept for the
 * next ones, so an idle pool may hold one registration per window.
 */
class FrmrUserSpaceTransportTest extends FrmrTransportTest {
    static final DeviceCapabilities USER_SPACE = new DeviceCapabilities(TransportType.ROCE, 8, 8, 8, 64, 4096, 16384, 16, 16,
            false, false, 0);

    @Override
    protected DeviceCapabilities capabilities() {
        return USER_SPACE;
    }

    @Override
    protected int idleRegistrationsAtMost(TransportConfig config, DeviceCapabilities caps) {
        int perPool = config.readSinkCount() > 0 ? config.readSinkCount()
                : TransportConfig.autoReadSinkCount(sinkLength(config, caps));
        return config.completionLoops() * perPool;
    }
}
