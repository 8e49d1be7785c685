package org.rpcrdma4j.transport.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/** ProviderChoiceTest - provider 'auto' takes DiSNI only with a device, else loopback, and says why. */
class ProviderChoiceTest {
    private final VerbsProvider loopback = provider("loopback", List.of(), null);

    @Test
    void aNamedProviderIsTakenAsNamed() {
        VerbsProvider disni = provider("disni", List.of(), null);
        assertSame(disni, ProviderChoice.choose("disni", Map.of("disni", disni, "loopback", loopback)).provider());
        ProviderChoice missing = ProviderChoice.choose("disni", Map.of("loopback", loopback));
        assertNull(missing.provider());
        assertTrue(missing.reason().contains("'disni' is not registered"), missing.reason());
    }

    @Test
    void autoWithoutDisniPicksLoopback() {
        ProviderChoice c = ProviderChoice.choose("auto", Map.of("loopback", loopback));
        assertSame(loopback, c.provider());
        assertTrue(c.reason().startsWith("no DiSNI provider is registered"), c.reason());
    }

    @Test
    void autoWithDisniButNoDevicePicksLoopback() {
        ProviderChoice c = ProviderChoice.choose("auto", Map.of("loopback", loopback, "disni", provider("disni", List.of(), null)));
        assertSame(loopback, c.provider());
        assertEquals("DiSNI sees no RDMA device with an IPv4 address", c.reason());
    }

    @Test
    void autoWithDisniFailingToListPicksLoopbackNamingTheError() {
        VerbsException e = new VerbsException("rdma_create_event_channel: no device", 19);
        ProviderChoice c = ProviderChoice.choose("auto", Map.of("loopback", loopback, "disni", provider("disni", List.of(), e)));
        assertSame(loopback, c.provider());
        assertTrue(c.reason().contains("rdma_create_event_channel: no device"), c.reason());
    }

    @Test
    void autoWithADisniDevicePicksDisni() {
        VerbsProvider disni = provider("disni", List.of(device("rxe0")), null);
        ProviderChoice c = ProviderChoice.choose("auto", Map.of("loopback", loopback, "disni", disni));
        assertSame(disni, c.provider());
        assertEquals("disni", c.name());
        assertTrue(c.reason().endsWith("rxe0"), c.reason());
    }

    @Test
    void autoWaitsWhenNothingIsRegistered() {
        ProviderChoice c = ProviderChoice.choose("auto", Map.of());
        assertNull(c.provider());
        assertNull(c.name());
        assertTrue(c.reason().contains("loopback provider is not registered"), c.reason());
    }

    private static VerbsProvider provider(String name, List<VerbsDevice> devices, VerbsException failure) {
        return new VerbsProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<VerbsDevice> devices() throws VerbsException {
                if (failure != null) {
                    throw failure;
                }
                return devices;
            }

            @Override
            public ConnectionManager openConnectionManager() {
                throw new UnsupportedOperationException();
            }
        };
    }

    private static VerbsDevice device(String name) {
        DeviceCapabilities caps = new DeviceCapabilities(TransportType.ROCE, 16, 16, 16, 64, 1024, 4096, 16, 16, false, false, 0);
        return new VerbsDevice() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public DeviceCapabilities capabilities() {
                return caps;
            }

            @Override
            public ProtectionDomain allocateProtectionDomain() {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletionQueue createCompletionQueue(int capacity) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
