package org.rpcrdma4j.registration.lkey;

import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.TransportConformanceTest;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.DeviceCapabilities;

/** The transport suite with local-lkey sinks on an InfiniBand-like loopback device. */
class LkeyTransportTest extends TransportConformanceTest {
    @Override
    protected RegistrationStrategy strategy() {
        return new LkeyRegistrationStrategy();
    }

    @Override
    protected int sinkLength(TransportConfig config, DeviceCapabilities caps) {
        return config.readSinkLength(); // one SGE under the slab's lkey, whatever the device's SGE limit
    }

    @Override
    protected int idleRegistrationsAtMost(TransportConfig config, DeviceCapabilities caps) {
        // one slab per loop's pool, registered for its lifetime; none on iWARP, where sinks are registered per READ
        return caps.transportType().readSinkRequiresRemoteWrite() ? 0 : config.completionLoops();
    }
}
