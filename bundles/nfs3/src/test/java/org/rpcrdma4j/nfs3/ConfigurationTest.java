package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Client networks, export rules and exports: parsing, matching, and validation messages. */
class ConfigurationTest {

    @TempDir
    Path temp;

    @Test
    void networksMatchByPrefix() throws IOException {
        ClientNetwork ten = ClientNetwork.parse("10.1.2.3/8");
        assertTrue(ten.contains(InetAddress.getByName("10.200.0.1")));
        assertFalse(ten.contains(InetAddress.getByName("11.0.0.1")));
        assertTrue(ten.contains(InetAddress.getByName("::ffff:10.0.0.9")), "IPv4-mapped peers match IPv4 networks");
        assertFalse(ten.contains(InetAddress.getByName("2001:db8::1")));
        ClientNetwork host = ClientNetwork.parse("127.0.0.1");
        assertTrue(host.contains(InetAddress.getByName("127.0.0.1")));
        assertFalse(host.contains(InetAddress.getByName("127.0.0.2")));
        assertTrue(ClientNetwork.parse("2001:db8::/32").contains(InetAddress.getByName("2001:db8:ffff::1")));
        assertTrue(ClientNetwork.parse("*").contains(InetAddress.getByName("192.0.2.1")));
        assertTrue(ClientNetwork.parse("10.0.0.0/0").contains(InetAddress.getByName("192.0.2.1")));
    }

    @Test
    void invalidNetworksNameTheSetting() {
        assertMessage("client network 'example.com'", () -> ClientNetwork.parse("example.com"));
        assertMessage("prefix length must be 0..32", () -> ClientNetwork.parse("10.0.0.0/33"));
        assertMessage("prefix length is not a number", () -> ClientNetwork.parse("10.0.0.0/x"));
        assertMessage("four parts", () -> ClientNetwork.parse("10.0.0"));
    }

    @Test
    void rulesParseOptionsWithSafeDefaults() {
        ExportRule defaults = ExportRule.parse("192.0.2.0/24");
        assertTrue(defaults.readOnly(), "ro by default");
        assertTrue(defaults.rootSquash(), "root_squash by default");
        assertEquals(ExportRule.NOBODY, defaults.anonUid());
        ExportRule rule = ExportRule.parse("127.0.0.1/32(rw,no_root_squash,anonuid=1000,anongid=100)");
        assertFalse(rule.readOnly());
        assertFalse(rule.rootSquash());
        assertEquals(1000, rule.anonUid());
        assertEquals(100, rule.anonGid());
        assertTrue(ExportRule.parse("*(rw,all_squash)").allSquash());
        assertMessage("export option 'sync' is unknown", () -> ExportRule.parse("*(rw,sync)"));
        assertMessage("anonuid=-1", () -> ExportRule.parse("*(anonuid=-1)"));
        assertMessage("must end with ')'", () -> ExportRule.parse("*(rw"));
    }

    @Test
    void exportsValidatePathsDirectoriesAndDuplicates() throws IOException {
        Path dir = Files.createDirectories(temp.resolve("d"));
        Export export = Export.parse("/data " + dir + " 127.0.0.1(rw) 10.0.0.0/8");
        assertEquals("/data", export.path());
        assertEquals(2, export.rules().size());
        assertTrue(export.ruleFor(InetAddress.getByName("10.1.1.1")).orElseThrow().readOnly());
        assertTrue(export.ruleFor(InetAddress.getByName("192.0.2.1")).isEmpty());
        assertMessage("export path 'data'", () -> Export.parse("data " + dir + " *"));
        assertMessage("export path '/a/../b'", () -> Export.parse("/a/../b " + dir + " *"));
        assertMessage("must be absolute", () -> Export.parse("/data relative *"));
        assertMessage("expected <path> <directory> <rule>", () -> Export.parse("/data " + dir));
        Path state = temp.resolve("state");
        assertMessage("duplicates", () -> NfsExportService.open(List.of(export, export), state));
        assertMessage("not an existing directory", () -> NfsExportService.open(
                List.of(Export.parse("/x " + temp.resolve("missing") + " *")), state));
        assertMessage("state directory", () -> NfsExportService.open(List.of(export), Path.of("relative")));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' names " + expected);
    }
}
