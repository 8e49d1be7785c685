package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.TransportConformanceTest;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.DeviceCapabilities;

/** The transport suite with FRMR sinks (REG_MR, READ, LOCAL_INV) on an InfiniBand-like device. */
class FrmrTransportTest extends TransportConformanceTest {
    @Override
    protected RegistrationStrategy strategy() {
        return new FrmrRegistrationStrategy();
    }

    @Override
    protected int sinkLength(TransportConfig config, DeviceCapabilities caps) {
        return caps.fastRegistration() ? Math.min(config.readSinkLength(), caps.maxFastRegistrationLength())
                : config.readSinkLength();
    }

    @Override
    protected int idleRegistrationsAtMost(TransportConfig config, DeviceCapabilities caps) {
        return 0; // a fresh key per READ, invalidated with it
    }
}
