package org.rpcrdma4j.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.PortState;

/** SysfsPortsTest - ports, states and addresses read from a copy of the kernel's sysfs layout. */
class SysfsPortsTest {
    @TempDir
    Path root;

    private static final Map<String, List<InetAddress>> NETDEVS = Map.of(
            "dummy0", List.of(address("fe80::1"), address("192.168.77.1")),
            "ib0", List.of(address("10.0.0.5")),
            "eth1", List.of(address("10.1.0.5")));

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<DevicePort> read(String device) {
        return SysfsPorts.read(root, device, n -> NETDEVS.getOrDefault(n, List.of()));
    }

    private void write(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    @Test
    void softRoceFindsItsNetdevThroughTheGidTableWithIpv4First() throws IOException {
        write("rxe0/ports/1/state", "4: ACTIVE\n");
        write("rxe0/ports/1/gid_attrs/ndevs/0", "dummy0\n");
        write("rxe0/ports/1/gid_attrs/ndevs/1", "dummy0\n");
        Files.createDirectories(root.resolve("rxe0/ports/1/gid_attrs/ndevs/2")); // unreadable entry: skipped
        List<DevicePort> ports = read("rxe0");
        assertEquals(List.of(new DevicePort(1, PortState.ACTIVE, List.of(address("192.168.77.1"), address("fe80::1")))), ports);
    }

    @Test
    void aNicFindsItsInterfacesThroughItsPciFunctionAndEveryPortIsListedInOrder() throws IOException {
        write("mlx5_0/ports/2/state", "1: DOWN\n");
        write("mlx5_0/ports/1/state", "4: ACTIVE\n");
        Files.createDirectories(root.resolve("mlx5_0/device/net/ib0"));
        List<DevicePort> ports = read("mlx5_0");
        assertEquals(2, ports.size());
        assertEquals(new DevicePort(1, PortState.ACTIVE, List.of(address("10.0.0.5"))), ports.get(0));
        assertEquals(new DevicePort(2, PortState.DOWN, List.of(address("10.0.0.5"))), ports.get(1));
    }

    @Test
    void aSoftIwarpDeviceFindsItsParent() throws IOException {
        write("siw0/ports/1/state", "4: ACTIVE");
        write("siw0/parent", "eth1\n");
        assertEquals(List.of(new DevicePort(1, PortState.ACTIVE, List.of(address("10.1.0.5")))), read("siw0"));
    }

    @Test
    void unreadableOrStrangeValuesAreUnknownAndAMissingDeviceHasNoPorts() throws IOException {
        write("odd0/ports/1/state", "garbage");
        Files.createDirectories(root.resolve("odd0/ports/2"));
        Files.createDirectories(root.resolve("odd0/ports/notaport"));
        write("odd0/ports/3/state", "9: FUTURE");
        List<DevicePort> ports = read("odd0");
        assertEquals(List.of(PortState.UNKNOWN, PortState.UNKNOWN, PortState.UNKNOWN), ports.stream().map(DevicePort::state).toList());
        assertEquals(List.of(1, 2, 3), ports.stream().map(DevicePort::number).toList());
        assertEquals(List.of(), read("absent0"));
    }
}
