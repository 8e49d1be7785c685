package org.rpcrdma4j.itests.jpms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The other half of "OSGi bundle and JPMS module": the bundle jars, exactly as built, are
 * named modules whose descriptors resolve on a plain module path with the JDK alone.
 */
class ModulePathIT {

    private static Map<String, ModuleReference> modules;
    private static ModuleFinder finder;

    @BeforeAll
    static void findModules() throws Exception {
        Path dir = Path.of(System.getProperty("itests.bundles.dir", "target/bundles"));
        assertTrue(Files.isDirectory(dir), "bundle jars were copied to " + dir);
        finder = ModuleFinder.of(dir);
        modules = new TreeMap<>();
        for (ModuleReference reference : finder.findAll()) {
            modules.put(reference.descriptor().name(), reference);
        }
    }

    @Test
    void everyBundleIsANamedModuleWithItsSymbolicName() {
        for (String name : new String[] {"org.rpcrdma4j.codec", "org.rpcrdma4j.verbs"}) {
            ModuleReference reference = modules.get(name);
            assertTrue(reference != null, "module " + name + " on the module path; found " + modules.keySet());
            assertTrue(!reference.descriptor().isAutomatic(), name + " has a real module-info, not an automatic name");
        }
    }

    @Test
    void apiPackagesAreExported() {
        assertEquals(Set.of("org.rpcrdma4j.codec"), exports("org.rpcrdma4j.codec"));
        assertTrue(exports("org.rpcrdma4j.verbs").contains("org.rpcrdma4j.verbs"));
    }

    @Test
    void allModulesResolveAgainstTheJdkAlone() {
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), modules.keySet());
        assertEquals(modules.keySet(), configuration.modules().stream()
                .map(m -> m.name()).filter(modules::containsKey).collect(Collectors.toSet()));
    }

    private static Set<String> exports(String module) {
        return modules.get(module).descriptor().exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
    }
}
