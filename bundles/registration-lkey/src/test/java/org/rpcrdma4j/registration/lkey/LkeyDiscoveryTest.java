package org.rpcrdma4j.registration.lkey;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.spi.RegistrationStrategies;

/** ServiceLoader finds the strategy through the descriptor bnd generates from @ServiceProvider. */
class LkeyDiscoveryTest {
    @Test
    void serviceLoaderFindsTheLkeyStrategy() {
        assertEquals(1, RegistrationStrategies.load().stream()
                .filter(s -> s instanceof LkeyRegistrationStrategy && s.name().equals(LkeyRegistrationStrategy.NAME)).count());
    }
}
