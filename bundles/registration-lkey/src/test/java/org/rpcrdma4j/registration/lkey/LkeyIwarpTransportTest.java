package org.rpcrdma4j.registration.lkey;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;

/**
 * The transport suite with local-lkey sinks on an iWARP-like device: one SGE per READ and READ
 * sinks that need REMOTE_WRITE, which the loopback enforces. The strategy registers each sink
 * window for its READ only, so a sink is one SGE of up to {@code readSinkLength} bytes.
 */
class LkeyIwarpTransportTest extends LkeyTransportTest {
    static final DeviceCapabilities IWARP = new DeviceCapabilities(TransportType.IWARP, 4, 4, 1, 64, 1024, 4096, 8, 8,
            false, false, 0);

    @Override
    protected DeviceCapabilities capabilities() {
        return IWARP;
    }

    @Override
    protected int sinkLength(TransportConfig config, DeviceCapabilities caps) {
        return config.readSinkLength();
    }
}
