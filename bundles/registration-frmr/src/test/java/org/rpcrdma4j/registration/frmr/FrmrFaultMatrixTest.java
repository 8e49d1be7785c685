package org.rpcrdma4j.registration.frmr;

import org.rpcrdma4j.transport.conformance.FaultMatrixTest;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;

/** The fault matrix with FRMR sinks: REG_MR and LOCAL_INV around each READ, besides RECV, SEND and WRITE. */
class FrmrFaultMatrixTest extends FaultMatrixTest {
    @Override
    protected RegistrationStrategy strategy() {
        return new FrmrRegistrationStrategy();
    }

    @Override
    protected boolean fastRegistration() {
        return true;
    }
}
