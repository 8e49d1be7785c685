package org.rpcrdma4j.verbs.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.PortState;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsProvider;

/** The loopback provider is found through ServiceLoader, on the class path and on the module path. */
class DiscoveryTest {
    @Test
    void serviceLoaderOnTheClassPathFindsTheLoopbackProvider() {
        List<VerbsProvider> providers = ServiceLoader.load(VerbsProvider.class).stream().map(ServiceLoader.Provider::get).collect(Collectors.toList());
        try {
            assertTrue(providers.stream().anyMatch(p -> LoopbackProvider.NAME.equals(p.name())), "providers: " + providers);
        } finally {
            providers.forEach(p -> ((LoopbackProvider) p).close());
        }
    }

    @Test
    void theDeviceHasOneActivePortWhileTheFabricIsOpen() {
        LoopbackProvider provider = new LoopbackProvider();
        VerbsDevice device = provider.devices().get(0);
        assertEquals(List.of(new DevicePort(1, PortState.ACTIVE, List.of())), device.ports());
        provider.close();
        assertEquals(List.of(new DevicePort(1, PortState.DOWN, List.of())), device.ports());
    }

    @Test
    void serviceLoaderInAModuleLayerFindsTheLoopbackProviderThroughModuleInfo() throws Exception {
        Path loopback = codeSource(LoopbackProvider.class);
        Path contract = codeSource(VerbsProvider.class);
        ModuleFinder finder = ModuleFinder.of(loopback, contract);
        Configuration configuration = ModuleLayer.boot().configuration().resolveAndBind(finder, ModuleFinder.of(), Set.of("org.rpcrdma4j.verbs.loopback"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
        Class<?> service = layer.findLoader("org.rpcrdma4j.verbs").loadClass(VerbsProvider.class.getName());
        List<String> names = ServiceLoader.load(layer, service).stream()
                .map(provider -> provider.type().getModule().getName() + "/" + provider.type().getName())
                .collect(Collectors.toList());
        assertEquals(List.of("org.rpcrdma4j.verbs.loopback/" + LoopbackProvider.class.getName()), names);
    }

    private static Path codeSource(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
