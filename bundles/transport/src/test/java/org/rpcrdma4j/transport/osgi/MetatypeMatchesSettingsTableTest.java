package org.rpcrdma4j.transport.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.TransportSetting;

/**
 * MetatypeMatchesSettingsTableTest - the component's metatype (its annotations take constants
 * only, so they repeat the numbers) says for every setting what {@link TransportSetting} says:
 * the same default, minimum and maximum. Read from the metatype bnd generated from
 * {@link RdmaTransportConfig}, as Karaf's Config Admin and web console read it (by pattern: the
 * transport's module does not read java.xml).
 */
class MetatypeMatchesSettingsTableTest {
    private static final String METATYPE = "OSGI-INF/metatype/org.rpcrdma4j.transport.osgi.RdmaTransportConfig.xml";
    /** Settings of the builder that the component does not offer. */
    private static final Set<TransportSetting> NOT_CONFIGURABLE = EnumSet.of(TransportSetting.RECEIVE_CONTEXTS,
            TransportSetting.REPOST_BATCH, TransportSetting.SINK_PAGE_SIZE, TransportSetting.COMPLETION_BATCH);

    @Test
    void everyConfigurableSettingHasTheTablesDefaultAndRange() throws Exception {
        String metatype;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(METATYPE)) {
            assertNotNull(in, METATYPE + " not on the class path: did bnd generate the metatype?");
            metatype = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Set<TransportSetting> seen = EnumSet.noneOf(TransportSetting.class);
        Matcher ad = Pattern.compile("<AD [^>]*>").matcher(metatype);
        while (ad.find()) {
            String element = ad.group();
            for (TransportSetting setting : TransportSetting.values()) {
                if (setting.property().equals(attribute(element, "id"))) {
                    seen.add(setting);
                    assertEquals(String.valueOf(setting.defaultValue()), attribute(element, "default"), setting + " default");
                    assertEquals(String.valueOf(setting.min()), attribute(element, "min"), setting + " min");
                    assertEquals(String.valueOf(setting.max()), attribute(element, "max"), setting + " max");
                }
            }
        }
        assertEquals(EnumSet.complementOf(EnumSet.copyOf(NOT_CONFIGURABLE)), seen, "settings in the metatype");
    }

    /** @return the value of attribute {@code name} of the XML element, or null */
    private static String attribute(String element, String name) {
        Matcher m = Pattern.compile(" " + name + "=\"([^\"]*)\"").matcher(element);
        return m.find() ? m.group(1) : null;
    }
}
