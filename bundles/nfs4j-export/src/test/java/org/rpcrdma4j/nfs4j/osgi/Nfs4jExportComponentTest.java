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
