package org.rpcrdma4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** DevicePortTest - port states map from ibv_port_state; a port checks and copies its values. */
class DevicePortTest {
    @Test
    void portStatesMapFromTheirNumbers() {
        assertEquals(PortState.UNKNOWN, PortState.of(0));
        assertEquals(PortState.DOWN, PortState.of(1));
        assertEquals(PortState.INIT, PortState.of(2));
        assertEquals(PortState.ARMED, PortState.of(3));
        assertEquals(PortState.ACTIVE, PortState.of(4));
        assertEquals(PortState.ACTIVE_DEFER, PortState.of(5));
        assertEquals(PortState.UNKNOWN, PortState.of(6));
        assertEquals(PortState.UNKNOWN, PortState.of(-1));
    }

    @Test
    void aPortChecksItsNumberAndKeepsItsOwnAddressList() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new DevicePort(0, PortState.ACTIVE, List.of()));
        assertThrows(NullPointerException.class, () -> new DevicePort(1, null, List.of()));
        List<InetAddress> addresses = new ArrayList<>(List.of(InetAddress.getByName("192.168.77.1")));
        DevicePort port = new DevicePort(1, PortState.ACTIVE, addresses);
        addresses.clear();
        assertEquals(1, port.addresses().size());
    }

    @Test
    void aDeviceWithoutPortInformationListsNoPort() {
        VerbsDevice device = new VerbsDevice() {
            @Override
            public String name() {
                return "x";
            }

            @Override
            public DeviceCapabilities capabilities() {
                return null;
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
        assertEquals(List.of(), device.ports());
    }
}
