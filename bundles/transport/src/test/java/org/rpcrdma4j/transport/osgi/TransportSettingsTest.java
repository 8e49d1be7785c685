package org.rpcrdma4j.transport.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * TransportSettingsTest - the metatype defaults make a valid configuration, and each bad value is
 * refused with a message naming its property (what the component logs before keeping the
 * previous configuration).
 */
class TransportSettingsTest {
    /** A config answering the metatype defaults, except the overrides. */
    private static RdmaTransportConfig config(Map<String, Object> overrides) {
        return (RdmaTransportConfig) Proxy.newProxyInstance(RdmaTransportConfig.class.getClassLoader(),
                new Class<?>[] {RdmaTransportConfig.class}, (proxy, method, args) -> {
                    if (overrides.containsKey(method.getName())) {
                        return overrides.get(method.getName());
                    }
                    if (method.getDefaultValue() != null) {
                        return method.getDefaultValue();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theDefaultsAreValid() {
        TransportSettings s = TransportSettings.of(config(Map.of()));
        assertEquals("auto", s.provider());
        assertEquals(20049, s.port());
        assertEquals(64, s.transportConfig().credits());
        assertEquals(TransportConfig.defaultCompletionLoops(), s.transportConfig().completionLoops(), "0: one per CPU");
        assertEquals(30, s.transportConfig().stallTimeoutSeconds());
        assertEquals(0, s.transportConfig().completionSpinMicros(), "0: a loop sleeps as soon as it finds no work");
        assertTrue(s.transportConfig().loopRunsCalls(), "leader/followers by default");
        assertFalse(TransportSettings.of(config(Map.of("loopRunsCalls", false))).transportConfig().loopRunsCalls());
        assertEquals(50, s.transportConfig().nextCallSpinMicros(), "a lone caller's next call is polled for");
        assertEquals(0, TransportSettings.of(config(Map.of("nextCallSpinMicros", 0))).transportConfig().nextCallSpinMicros());
        assertEquals(1000, s.transportConfig().callTimeSliceMicros(), "a kept call runs without waking the standby");
        assertEquals(0, TransportSettings.of(config(Map.of("callTimeSliceMicros", 0))).transportConfig().callTimeSliceMicros());
        assertEquals(1024, s.transportConfig().maxConnections());
        assertEquals(2, s.transportConfig().backchannelCredits());
        assertEquals(0, s.transportConfig().readSinkCount(), "0: 24 MiB of sinks per loop");
        assertEquals(24 << 20, s.transportConfig().replyStagingBytes());
        assertEquals("lkey", s.activeStrategy());
        assertTrue(s.enabled());
    }

    @Test
    void eachBadValueIsRefusedNamingItsProperty() {
        Map<String, Object> bad = Map.ofEntries(Map.entry("credits", 0), Map.entry("port", 70000),
                Map.entry("inlineReceiveThreshold", 1000), Map.entry("maxOutstandingReads", 500),
                Map.entry("replyStagingBytes", 1), Map.entry("maxReadChunks", 0), Map.entry("replyCacheEntries", -1),
                Map.entry("replyCacheMaxReplyBytes", 1 << 21), Map.entry("bindAddress", ""), Map.entry("provider", " "),
                Map.entry("completionLoops", 65), Map.entry("stallTimeoutSeconds", 0), Map.entry("maxConnections", 0),
                Map.entry("backchannelCredits", 257), Map.entry("completionSpinMicros", 1001),
                Map.entry("nextCallSpinMicros", -1), Map.entry("callTimeSliceMicros", 100_001),
                Map.entry("readSinkCount", -1));
        for (Map.Entry<String, Object> e : bad.entrySet()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> TransportSettings.of(config(Map.of(e.getKey(), e.getValue()))), e.getKey());
            assertTrue(refused.getMessage().contains(e.getKey()), e.getKey() + ": " + refused.getMessage());
        }
    }

    @Test
    void onlyAStrategyChangeIsSwitchedInPlace() {
        TransportSettings base = TransportSettings.of(config(Map.of()));
        assertTrue(base.sameExceptStrategy(TransportSettings.of(config(Map.of("activeStrategy", "frmr")))));
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("credits", 32)))));
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("completionSpinMicros", 20)))));
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("nextCallSpinMicros", 0)))));
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("callTimeSliceMicros", 0)))));
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("loopRunsCalls", false)))),
                "a new crew per loop: the transport restarts");
        assertFalse(base.sameExceptStrategy(TransportSettings.of(config(Map.of("provider", "disni")))));
    }

    /** What Felix SCR throws when it cannot convert a property as the config method is called. */
    static final class ConversionFailure extends RuntimeException {
        ConversionFailure(Throwable cause) {
            super("Cannot convert", cause);
        }
    }

    /** A config as SCR presents {@code raw}: each method converts its property when called. */
    static RdmaTransportConfig scrConfig(Map<String, Object> raw) {
        return (RdmaTransportConfig) Proxy.newProxyInstance(RdmaTransportConfig.class.getClassLoader(),
                new Class<?>[] {RdmaTransportConfig.class}, (proxy, method, args) -> {
                    Object value = raw.get(method.getName());
                    if (value == null) {
                        return method.getDefaultValue();
                    }
                    String text = value.toString().trim();
                    try {
                        if (method.getReturnType() == int.class) {
                            return Integer.valueOf(text);
                        } else if (method.getReturnType() == long.class) {
                            return Long.valueOf(text);
                        } else if (method.getReturnType() == boolean.class) {
                            return Boolean.valueOf(text);
                        }
                        return text;
                    } catch (NumberFormatException e) {
                        throw new ConversionFailure(e);
                    }
                });
    }

    @Test
    void aValueSCRCannotConvertIsRefusedNamingThePropertyAndTheValue() {
        Map<String, Object> raw = Map.of("credits", "abc");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> TransportSettings.of(scrConfig(raw), raw));
        assertTrue(refused.getMessage().startsWith("credits = abc: not a whole number (NumberFormatException"),
                refused.getMessage());
        Map<String, Object> long_ = Map.of("maxReadBytes", "16M");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TransportSettings.of(scrConfig(long_), long_))
                .getMessage().startsWith("maxReadBytes = 16M: not a whole number"));
        Map<String, Object> bool = Map.of("enabled", "flase");
        assertEquals("enabled = flase: not true or false",
                assertThrows(IllegalArgumentException.class, () -> TransportSettings.of(scrConfig(bool), bool)).getMessage());
        Map<String, Object> good = Map.of("credits", " 32 ", "enabled", "TRUE", "loopRunsCalls", "false");
        TransportSettings s = TransportSettings.of(scrConfig(good), good);
        assertEquals(32, s.transportConfig().credits());
        assertTrue(s.enabled());
        assertFalse(s.transportConfig().loopRunsCalls());
    }

    @Test
    void anUnknownKeyIsNamedWithTheNearestKnownOne() {
        assertEquals(List.of("unknown property 'credts' ignored; did you mean 'credits'?",
                "unknown property 'inlineRecieveThreshold' ignored; did you mean 'inlineReceiveThreshold'?"),
                ConfigKeys.unknown(Map.of("credts", "64", "inlineRecieveThreshold", "4096", "port", "20049",
                        "service.pid", "org.rpcrdma4j.transport", "felix.fileinstall.filename", "file:/etc/x.cfg",
                        "component.name", "x", "component.id", 3L)));
        assertEquals(List.of(), ConfigKeys.unknown(Map.of("credits", "64", "service.factoryPid", "y")));
    }

    @Test
    void aProviderNoProviderHasIsRefusedWithTheNearestName() {
        TransportSettings.checkProvider("auto", Set.of());
        TransportSettings.checkProvider("disni", Set.of());
        TransportSettings.checkProvider("loopback", Set.of());
        TransportSettings.checkProvider("vendor", Set.of("vendor", "loopback"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> TransportSettings.checkProvider("disnii", Set.of("loopback")));
        assertEquals("provider = disnii: no such verbs provider (one of [auto, disni, loopback]); did you mean 'disni'?",
                refused.getMessage());
    }
}
