package org.rpcrdma4j.registration.frmr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.spi.RegistrationStrategies;

/** ServiceLoader finds the strategy through the descriptor bnd generates from @ServiceProvider. */
class FrmrDiscoveryTest {
    @Test
    void serviceLoaderFindsTheFrmrStrategy() {
        assertEquals(1, RegistrationStrategies.load().stream()
                .filter(s -> s instanceof FrmrRegistrationStrategy && s.name().equals(FrmrRegistrationStrategy.NAME)).count());
    }
}
