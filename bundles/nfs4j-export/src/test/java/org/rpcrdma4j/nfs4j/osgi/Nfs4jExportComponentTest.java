package org.rpcrdma4j.nfs4j.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs4j.Nfs4jServers;

/**
 * Nfs4jExportComponentTest - every property is checked when set, and a refusal names the
 * property and the fault.
 */
class Nfs4jExportComponentTest {

    @TempDir
    Path temporary;
    private Map<String, Object> properties;

    @BeforeEach
    void good() throws IOException {
        Files.createDirectories(temporary.resolve("root/data"));
        properties = new HashMap<>();
        properties.put("root", temporary.resolve("root").toString());
        properties.put("stateDirectory", temporary.resolve("state").toString());
        properties.put("exports", new String[] {"/ 127.0.0.1(rw,no_root_squash,insecure)", "/data 10.0.0.0/8(ro)"});
    }

    private String refusal() {
        return assertThrows(IllegalArgumentException.class, () -> Nfs4jExportComponent.settingsOf(properties))
                .getMessage();
    }

    @Test
    void defaultsAndAGoodConfiguration() {
        Nfs4jServers.Settings settings = Nfs4jExportComponent.settingsOf(properties);
        assertEquals(Set.of(Nfs4jServers.Version.NFS4), settings.versions());
        assertEquals(Duration.ofSeconds(90), settings.lease());
        assertEquals(2, settings.exports().size());
        properties.put("versions", "4.1,3".split(","));
        properties.put("leaseSeconds", "30");
        settings = Nfs4jExportComponent.settingsOf(properties);
        assertEquals(Set.of(Nfs4jServers.Version.NFS4, Nfs4jServers.Version.NFS3), settings.versions());
        assertEquals(Duration.ofSeconds(30), settings.lease());
    }

    /** A bundle context that records the services registered and unregistered through it. */
    private static final class RecordingContext {
        final List<Map<String, Object>> live = new java.util.concurrent.CopyOnWriteArrayList<>();
        int registered;

        org.osgi.framework.BundleContext proxy() {
            return (org.osgi.framework.BundleContext) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {org.osgi.framework.BundleContext.class},
                    (self, method, args) -> {
                        if (!method.getName().equals("registerService")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        Map<String, Object> properties = new HashMap<>();
                        java.util.Dictionary<?, ?> dictionary = (java.util.Dictionary<?, ?>) args[2];
                        for (Object key : java.util.Collections.list(dictionary.keys())) {
                            properties.put((String) key, dictionary.get(key));
                        }
                        live.add(properties);
                        registered++;
                        return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                                new Class<?>[] {org.osgi.framework.ServiceRegistration.class},
                                (registration, call, none) -> {
                                    if (call.getName().equals("unregister")) {
                                        live.remove(properties);
                                        return null;
                                    }
                                    throw new UnsupportedOperationException(call.getName());
                                });
                    });
        }
    }

    @Test
    void aBadConfigurationKeepsThePreviousServersAndAnExportsChangeKeepsNfs4j() {
        RecordingContext context = new RecordingContext();
        Nfs4jExportComponent component = new Nfs4jExportComponent(context.proxy(), properties);
        try {
            assertEquals(List.of(Map.of("rpc.program", 100003, "rpc.version", 4)), context.live);

            properties.put("exports", new String[] {"/data 127.0.0.1(rw,frobnicate)"});
            component.modified(properties);
            assertEquals(1, context.registered, "refused: nothing registered anew");
            assertEquals(List.of(Map.of("rpc.program", 100003, "rpc.version", 4)), context.live,
                    "the previous servers keep serving");

            properties.put("exports", new String[] {"/data 127.0.0.1(ro)"});
            component.modified(properties);
            assertEquals(1, context.registered, "an exports change keeps nfs4j's servers (and their NFSv4 state)");

            properties.put("versions", new String[] {"4", "3"});
            component.modified(properties);
            assertEquals(Set.of(Map.of("rpc.program", 100003, "rpc.version", 4),
                    Map.of("rpc.program", 100003, "rpc.version", 3), Map.of("rpc.program", 100005, "rpc.version", 3)),
                    Set.copyOf(context.live), "new servers for a new version set, the old ones gone");
        } finally {
            component.deactivate();
        }
        assertEquals(List.of(), context.live, "deactivation unregisters everything");
    }

    @Test
    void aBadFirstConfigurationServesNothing() {
        properties.put("leaseSeconds", "forever");
        RecordingContext context = new RecordingContext();
        Nfs4jExportComponent component = new Nfs4jExportComponent(context.proxy(), properties);
        assertEquals(List.of(), context.live);
        component.deactivate();
    }

    @Test
    void eachFaultIsNamed() throws IOException {
        properties.put("leaseSeconds", "abc");
        assertTrue(refusal().startsWith("leaseSeconds = abc: not a whole number"), refusal());
        properties.put("leaseSeconds", 5);
        assertTrue(refusal().contains("outside 10..3600"), refusal());
        properties.remove("leaseSeconds");
        properties.put("versions", new String[] {"2"});
        assertTrue(refusal().startsWith("versions: '2' is not an NFS version"), refusal());
        properties.remove("versions");
        properties.put("root", "relative/dir");
        assertTrue(refusal().startsWith("root = relative/dir: not an absolute path"), refusal());
        properties.put("root", temporary.resolve("root").toString());
        properties.remove("stateDirectory");
        assertTrue(refusal().startsWith("stateDirectory: required"), refusal());
        properties.put("stateDirectory", temporary.resolve("state").toString());
        properties.put("exports", new String[] {"/ 127.0.0.1(rw)", "/data 127.0.0.1(rw,frobnicate)"});
        assertTrue(refusal().startsWith("exports[1] '/data 127.0.0.1(rw,frobnicate)': nfs4j refused 1"), refusal());
        properties.put("exports", new String[] {"/missing 127.0.0.1(rw)"});
        assertTrue(refusal().contains("is not a directory inside the root"), refusal());
        properties.put("exports", new String[] {"/../.. 127.0.0.1(rw)"});
        assertTrue(refusal().contains("is not a directory inside the root"), refusal());
        Files.createSymbolicLink(temporary.resolve("root/link"), temporary);
        properties.put("exports", new String[] {"/link 127.0.0.1(rw)"});
        assertTrue(refusal().contains("symbolic link"), refusal());
        properties.put("exports", new String[] {"data 127.0.0.1(rw)"});
        assertTrue(refusal().contains("starts with '/'"), refusal());
        properties.put("exports", new String[] {"/data"});
        assertTrue(refusal().contains("no client given"), refusal());
        properties.put("exports", List.of());
        assertTrue(refusal().startsWith("exports: no export given"), refusal());
    }
}
