package org.rpcrdma4j.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ConfigurationIsDocumentedTest - every setting a component offers through Config Admin is said
 * the same way in the three places an operator reads it: the OSGi metatype bnd generates from the
 * component's annotations (what Karaf's web console and {@code config:} commands show, and what
 * the component checks), the README's configuration table, and the assembly's
 * {@code etc/<pid>.cfg} files (which list the embedded defaults). The transport's numbers are
 * defined once in {@code TransportSetting}, which the transport's own test holds its metatype to;
 * this test carries them on to the README and the cfg files, and does the same for every other
 * component with a metatype.
 *
 * <p>Per setting: a README row exists for its PID and property; a default the metatype gives is
 * the README's default (sizes may be written with KiB, MiB, GiB, TiB); a setting without one (a
 * path the assembly fills in) is marked "(assembly)" with the value the cfg file carries; a
 * range the metatype gives is the README's {@code min..max}. Per README row: the metatype of its
 * PID has that property. Per cfg line: the property exists, and its value is the default.
 */
class ConfigurationIsDocumentedTest {

    /** PIDs whose metatype must be found: without them the test would check nothing. */
    private static final Set<String> ALWAYS_BUILT = Set.of("org.rpcrdma4j.transport", "org.rpcrdma4j.server",
            "org.rpcrdma4j.server.tcp", "org.rpcrdma4j.nfs3", "org.rpcrdma4j.verbs.disni");
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Path ETC = ROOT.resolve("karaf-assembly/src/main/resources/assembly/etc");

    /** One attribute definition of a metatype: its id and the attributes bnd wrote (null when absent). */
    record Attribute(String pid, String id, String type, String defaultValue, String min, String max) {
    }

    /** One row of the README's configuration table. */
    record Row(String pid, String property, String defaultText, String rangeText) {
    }

    private static Map<String, Map<String, Attribute>> metatypes;
    private static Map<String, Map<String, Row>> readme;

    @BeforeAll
    static void read() throws IOException {
        metatypes = readMetatypes();
        readme = readReadmeTable(Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8));
        assertTrue(metatypes.keySet().containsAll(ALWAYS_BUILT),
                "metatypes found on the class path: " + metatypes.keySet() + "; expected at least " + ALWAYS_BUILT);
    }

    @Test
    void everySettingIsInTheReadmeWithItsDefaultAndRange() {
        List<String> wrong = new ArrayList<>();
        metatypes.forEach((pid, attributes) -> attributes.values().forEach(a -> {
            Row row = readme.getOrDefault(pid, Map.of()).get(a.id());
            if (row == null) {
                wrong.add(pid + " " + a.id() + ": no row in the README's configuration table");
                return;
            }
            if (a.defaultValue() == null) {
                if (!row.defaultText().endsWith("(assembly)")) {
                    wrong.add(pid + " " + a.id() + ": has no default in the metatype, so the README must give the"
                            + " assembly's value marked (assembly), not '" + row.defaultText() + "'");
                }
            } else if (!sameValue(a, row.defaultText())) {
                wrong.add(pid + " " + a.id() + ": README default '" + row.defaultText() + "', metatype default '"
                        + a.defaultValue() + "'");
            }
            if (a.min() != null || a.max() != null) {
                String expected = (a.min() == null ? "" : a.min()) + ".." + (a.max() == null ? "" : a.max());
                String documented = range(row.rangeText());
                if (!expected.equals(documented)) {
                    wrong.add(pid + " " + a.id() + ": README range '" + row.rangeText() + "' (" + documented
                            + "), metatype range " + expected);
                }
            }
        }));
        assertEquals(List.of(), wrong, "settings the README says otherwise than the metatype");
    }

    @Test
    void everyReadmeRowNamesASettingThatExists() {
        List<String> unknown = new ArrayList<>();
        readme.forEach((pid, rows) -> {
            Map<String, Attribute> attributes = metatypes.get(pid);
            if (attributes == null) {
                // a component not built here (nfs4j's export needs the nfs4j profile); its own module checks it then
                assertTrue(!ALWAYS_BUILT.contains(pid), pid);
                return;
            }
            rows.keySet().stream().filter(p -> !attributes.containsKey(p)).forEach(p -> unknown.add(pid + " " + p));
        });
        assertEquals(List.of(), unknown, "README rows no component's metatype has");
    }

    @Test
    void theAssemblysCfgFilesHoldTheDefaults() throws IOException {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.list(ETC)) {
            for (Path cfg : files.filter(f -> f.getFileName().toString().startsWith("org.rpcrdma4j.")).sorted().toList()) {
                String name = cfg.getFileName().toString();
                String pid = name.substring(0, name.length() - ".cfg".length());
                Map<String, Attribute> attributes = metatypes.get(pid);
                if (attributes == null) {
                    assertTrue(!ALWAYS_BUILT.contains(pid), pid);
                    continue;
                }
                for (Map.Entry<String, String> line : cfgLines(cfg).entrySet()) {
                    checked++;
                    Attribute a = attributes.get(line.getKey());
                    if (a == null) {
                        wrong.add(name + ": " + line.getKey() + " is no setting of " + pid);
                    } else if (a.defaultValue() != null) {
                        if (!sameValue(a, line.getValue())) {
                            wrong.add(name + ": " + line.getKey() + " = " + line.getValue() + ", default " + a.defaultValue());
                        }
                    } else {
                        Row row = readme.getOrDefault(pid, Map.of()).get(a.id());
                        String documented = row == null ? null
                                : row.defaultText().replace("(assembly)", "").strip().replace("`", "");
                        if (!line.getValue().equals(documented)) {
                            wrong.add(name + ": " + line.getKey() + " = " + line.getValue() + ", README says " + documented);
                        }
                    }
                }
            }
        }
        assertTrue(checked > 20, "cfg settings checked: " + checked);
        assertEquals(List.of(), wrong, "cfg lines that are not the documented defaults");
    }

    @Test
    void rangesAndSizesAreReadAsOperatorsWriteThem() {
        assertEquals("1024..262144", range("1024..262144, ×1024"));
        assertEquals("4..16777216", range("4..16 MiB, ×4"));
        assertEquals("65536..1073741824", range("64 KiB..1 GiB"));
        assertEquals("1..1099511627776", range("1..1 TiB"));
        assertEquals("", range("an IP address"));
        assertEquals(16777216L, number("16 MiB"));
        assertEquals(25165824L, number("25165824"));
    }

    /** @return whether the README's or cfg's text says the metatype's default */
    private static boolean sameValue(Attribute a, String text) {
        String plain = text.replace("`", "").strip();
        if (a.type().equals("Integer") || a.type().equals("Long")) {
            Long n = number(plain);
            return n != null && n == Long.parseLong(a.defaultValue());
        }
        return plain.equals(a.defaultValue());
    }

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(KiB|MiB|GiB|TiB)?");

    /** @return the whole number a text such as {@code 262144} or {@code 16 MiB} says, else null */
    static Long number(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2);
        int shift = unit == null ? 0 : switch (unit) {
            case "KiB" -> 10;
            case "MiB" -> 20;
            case "GiB" -> 30;
            default -> 40;
        };
        return n << shift;
    }

    /** @return {@code min..max} in plain numbers from a README range such as {@code 4..16 MiB, ×4}, or "" */
    static String range(String text) {
        String first = text.split(",")[0].strip();
        int dots = first.indexOf("..");
        if (dots < 0) {
            return "";
        }
        Long min = number(first.substring(0, dots));
        Long max = number(first.substring(dots + 2));
        return (min == null ? "?" : min) + ".." + (max == null ? "?" : max);
    }

    /** Reads the rows of the table under "## Configuration": PID, property, default, range, meaning. */
    static Map<String, Map<String, Row>> readReadmeTable(String text) {
        int start = text.indexOf("\n## Configuration\n");
        assertTrue(start >= 0, "README has no '## Configuration' section");
        int end = text.indexOf("\n## ", start + 1);
        Map<String, Map<String, Row>> rows = new TreeMap<>();
        for (String line : text.substring(start, end < 0 ? text.length() : end).split("\n")) {
            if (!line.startsWith("| `org.rpcrdma4j.")) {
                continue;
            }
            String[] cells = line.split(" \\| ");
            assertTrue(cells.length >= 5, "a configuration row of 5 cells: " + line);
            String pid = cells[0].substring(1).strip().replace("`", "");
            String property = cells[1].strip();
            assertTrue(property.matches("`[A-Za-z]+`"), "one property per row, in backquotes: " + line);
            Row row = new Row(pid, property.replace("`", ""), cells[2].strip(), cells[3].strip());
            Row before = rows.computeIfAbsent(pid, p -> new LinkedHashMap<>()).put(row.property(), row);
            assertTrue(before == null, "two README rows for " + pid + " " + row.property());
        }
        return rows;
    }

    /** Reads every OSGI-INF/metatype/*.xml of our bundles on the class path, by the PID it designates. */
    private static Map<String, Map<String, Attribute>> readMetatypes() throws IOException {
        Map<String, Map<String, Attribute>> byPid = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!p.getFileName().toString().startsWith("rpcrdma4j-") && !entry.contains("rpcrdma4j")
                    && !entry.contains("/bundles/")) {
                continue;
            }
            for (String xml : metatypeFiles(p)) {
                parseMetatype(xml, byPid);
            }
        }
        return byPid;
    }

    private static List<String> metatypeFiles(Path entry) throws IOException {
        List<String> files = new ArrayList<>();
        if (Files.isDirectory(entry)) {
            Path dir = entry.resolve("OSGI-INF/metatype");
            if (Files.isDirectory(dir)) {
                try (Stream<Path> xmls = Files.list(dir)) {
                    for (Path xml : xmls.filter(f -> f.toString().endsWith(".xml")).toList()) {
                        files.add(Files.readString(xml, StandardCharsets.UTF_8));
                    }
                }
            }
        } else if (entry.toString().endsWith(".jar") && Files.isRegularFile(entry)) {
            try (ZipFile jar = new ZipFile(entry.toFile())) {
                var entries = jar.entries();
                while (entries.hasMoreElements()) {
                    var e = entries.nextElement();
                    if (e.getName().startsWith("OSGI-INF/metatype/") && e.getName().endsWith(".xml")) {
                        try (InputStream in = jar.getInputStream(e)) {
                            files.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                        }
                    }
                }
            }
        }
        return files;
    }

    private static void parseMetatype(String xml, Map<String, Map<String, Attribute>> byPid) {
        Matcher designate = Pattern.compile("<Designate [^>]*pid=\"([^\"]+)\"").matcher(xml);
        assertTrue(designate.find(), "a metatype without a Designate pid: " + xml);
        String pid = designate.group(1);
        Matcher ad = Pattern.compile("<AD [^>]*>").matcher(xml);
        Map<String, Attribute> attributes = byPid.computeIfAbsent(pid, p -> new LinkedHashMap<>());
        while (ad.find()) {
            String element = ad.group();
            Attribute a = new Attribute(pid, attribute(element, "id"), attribute(element, "type"),
                    attribute(element, "default"), attribute(element, "min"), attribute(element, "max"));
            attributes.put(a.id(), a);
        }
    }

    /** @return the value of attribute {@code name} of the XML element, or null */
    private static String attribute(String element, String name) {
        Matcher m = Pattern.compile(" " + name + "=\"([^\"]*)\"").matcher(element);
        return m.find() ? m.group(1) : null;
    }

    /** @return the key = value lines of a Karaf cfg file, comments and blank lines left out */
    private static Map<String, String> cfgLines(Path cfg) throws IOException {
        Map<String, String> lines = new LinkedHashMap<>();
        for (String line : Files.readAllLines(cfg, StandardCharsets.UTF_8)) {
            String s = line.strip();
            if (s.isEmpty() || s.startsWith("#") || s.startsWith("!")) {
                continue;
            }
            int eq = s.indexOf('=');
            assertTrue(eq > 0, cfg + ": not a key = value line: " + line);
            lines.put(s.substring(0, eq).strip(), s.substring(eq + 1).strip());
        }
        return lines;
    }
}
