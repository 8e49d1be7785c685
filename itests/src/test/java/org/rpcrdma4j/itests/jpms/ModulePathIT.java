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
import java.util.jar.JarFile;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The other half of "OSGi bundle and JPMS module": the bundle jars, exactly as built, are
 * named modules whose descriptors resolve on a plain module path with the JDK and the jars
 * they require (oncrpc4j and its dependencies as automatic modules).
 */
class ModulePathIT {

    private static Map<String, ModuleReference> modules;
    private static ModuleFinder finder;
    private static Path bundlesDir;

    @BeforeAll
    static void findModules() throws Exception {
        bundlesDir = Path.of(System.getProperty("itests.bundles.dir", "target/bundles"));
        assertTrue(Files.isDirectory(bundlesDir), "bundle jars were copied to " + bundlesDir);
        finder = ModuleFinder.of(bundlesDir);
        modules = new TreeMap<>();
        for (ModuleReference reference : finder.findAll()) {
            modules.put(reference.descriptor().name(), reference);
        }
    }

    @Test
    void everyBundleOfOursIsANamedModuleWithItsSymbolicName() throws Exception {
        int checked = 0;
        try (var jars = Files.newDirectoryStream(bundlesDir, "rpcrdma4j-*.jar")) {
            for (Path jar : jars) {
                ModuleReference reference = ModuleFinder.of(jar).findAll().iterator().next();
                ModuleDescriptor descriptor = reference.descriptor();
                assertTrue(!descriptor.isAutomatic(), jar.getFileName() + " has a real module-info, not an automatic name");
                String symbolicName;
                try (JarFile jarFile = new JarFile(jar.toFile())) {
                    symbolicName = jarFile.getManifest().getMainAttributes().getValue("Bundle-SymbolicName");
                }
                assertEquals(symbolicName, descriptor.name(), jar.getFileName() + ": module name = bundle symbolic name");
                checked++;
            }
        }
        assertTrue(checked >= 3, "found our bundle jars in " + bundlesDir + ", checked " + checked);
    }

    @Test
    void apiPackagesAreExported() {
        assertEquals(Set.of("org.rpcrdma4j.codec"), exports("org.rpcrdma4j.codec"));
        assertTrue(exports("org.rpcrdma4j.verbs").contains("org.rpcrdma4j.verbs"));
    }

    @Test
    void ourModulesResolveWithTheirDependenciesAndTheJdkOnly() {
        Set<String> ours = modules.keySet().stream().filter(n -> n.startsWith("org.rpcrdma4j."))
                .collect(Collectors.toSet());
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), ours);
        Set<String> resolved = configuration.modules().stream().map(m -> m.name()).collect(Collectors.toSet());
        assertTrue(resolved.containsAll(ours), "resolved " + resolved + ", wanted " + ours);
    }

    private static Set<String> exports(String module) {
        return modules.get(module).descriptor().exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
    }
}
