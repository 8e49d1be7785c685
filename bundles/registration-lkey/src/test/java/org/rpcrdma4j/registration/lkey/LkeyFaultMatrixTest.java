package org.rpcrdma4j.registration.lkey;

import org.rpcrdma4j.transport.conformance.FaultMatrixTest;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;

/** The fault matrix with local-lkey sinks: RECV, SEND, RDMA READ and RDMA WRITE. */
class LkeyFaultMatrixTest extends FaultMatrixTest {
    @Override
    protected RegistrationStrategy strategy() {
        return new LkeyRegistrationStrategy();
    }

    @Override
    protected boolean fastRegistration() {
        return false;
    }
}
