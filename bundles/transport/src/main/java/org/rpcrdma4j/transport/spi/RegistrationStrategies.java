package org.rpcrdma4j.transport.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceConsumer;

/**
 * RegistrationStrategies - find the strategies on the module path or class path, outside OSGi
 * (in OSGi, track {@link RegistrationStrategy} services instead).
 */
@ServiceConsumer(value = RegistrationStrategy.class, resolution = Resolution.OPTIONAL)
public final class RegistrationStrategies {
    private RegistrationStrategies() {
    }

    /**
     * load() - every strategy {@link ServiceLoader} finds, in its order.
     *
     * @return new strategy instances; empty when none is deployed
     */
    public static List<RegistrationStrategy> load() {
        List<RegistrationStrategy> found = new ArrayList<>();
        ServiceLoader.load(RegistrationStrategy.class, RegistrationStrategies.class.getClassLoader()).forEach(found::add);
        return found;
    }
}
