package org.rpcrdma4j.transport.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceConsumer;

/**
 * UpperLayerBindings - find the upper-layer bindings on the module path or class path, outside
 * OSGi (in OSGi, track {@link UpperLayerBinding} services instead).
 */
@ServiceConsumer(value = UpperLayerBinding.class, resolution = Resolution.OPTIONAL)
public final class UpperLayerBindings {
    private UpperLayerBindings() {
    }

    /**
     * load() - every binding {@link ServiceLoader} finds, in its order.
     *
     * @return new binding instances; empty when none is deployed
     */
    public static List<UpperLayerBinding> load() {
        List<UpperLayerBinding> found = new ArrayList<>();
        ServiceLoader.load(UpperLayerBinding.class, UpperLayerBindings.class.getClassLoader()).forEach(found::add);
        return found;
    }
}
