package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.CompletionQueue;
import org.rpcrdma4j.verbs.ConnectionManager;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.PortState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.loopback.LoopbackProvider;

/** DeviceListingTest - rpcrdma:devices: one row per device port with its state, link layer, addresses and capabilities. */
class DeviceListingTest {
    @Test
    void aRoceDeviceShowsEachPortWithItsAddressesAndCapabilities() throws Exception {
        DeviceCapabilities caps = new DeviceCapabilities(TransportType.ROCE, 16, 16, 8, 64, 16384, 32767, 128, 64, false, false, 0);
        VerbsDevice rxe = device("rxe0", caps, List.of(
                new DevicePort(1, PortState.ACTIVE, List.of(InetAddress.getByName("192.168.77.1"), InetAddress.getByName("fe80::1"))),
                new DevicePort(2, PortState.DOWN, List.of())));
        String text = Fakes.render(DeviceListing.devices(List.of(provider("disni", List.of(rxe), null))));
        assertEquals(List.of("disni", "rxe0", "1", "ACTIVE", "Ethernet (RoCE)", "192.168.77.1, [fe80:0:0:0:0:0:0:1]", "no", "no",
                "128/64", "16/16/8"), Fakes.row(text, "disni", "rxe0", "1"));
        assertEquals(List.of("disni", "rxe0", "2", "DOWN", "Ethernet (RoCE)", "-", "no", "no", "128/64", "16/16/8"),
                Fakes.row(text, "disni", "rxe0", "2"));
    }

    @Test
    void theLoopbackDeviceIsListedWithFastRegistrationAndRemoteInvalidation() {
        try (LoopbackProvider loopback = new LoopbackProvider()) {
            String text = Fakes.render(DeviceListing.devices(List.of(loopback)));
            VerbsDevice device = loopback.devices().get(0);
            List<String> row = Fakes.row(text, "loopback", device.name());
            assertEquals("1", row.get(2));
            assertEquals("ACTIVE", row.get(3));
            DeviceCapabilities c = device.capabilities();
            assertEquals(c.fastRegistration() ? "yes (" + c.maxFastRegistrationLength() + " B)" : "no", row.get(6));
            assertEquals(c.remoteInvalidation() ? "yes" : "no", row.get(7));
            assertEquals(c.maxOutstandingReads() + "/" + c.maxIncomingReads(), row.get(8));
        }
    }

    @Test
    void aProviderThatCannotListOrHasNoDeviceSaysSo() {
        VerbsException e = new VerbsException("libdisni not loadable", 19);
        String text = Fakes.render(DeviceListing.devices(List.of(provider("disni", List.of(), e), provider("other", List.of(), null))));
        assertTrue(Fakes.row(text, "disni").get(1).contains("cannot list: libdisni not loadable"), text);
        assertEquals("(no device with an IPv4 address)", Fakes.row(text, "other").get(1));
        assertTrue(Fakes.render(DeviceListing.devices(List.of())).contains(DeviceListing.NO_PROVIDER));
    }

    @Test
    void linkLayersAreNamedAsOperatorsKnowThem() {
        assertEquals("InfiniBand", DeviceListing.linkLayer(TransportType.INFINIBAND));
        assertEquals("Ethernet (RoCE)", DeviceListing.linkLayer(TransportType.ROCE));
        assertEquals("iWARP", DeviceListing.linkLayer(TransportType.IWARP));
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

    private static VerbsDevice device(String name, DeviceCapabilities caps, List<DevicePort> ports) {
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
            public List<DevicePort> ports() {
                return ports;
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
