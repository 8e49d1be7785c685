package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.PortState;

/**
 * SysfsPorts - the ports of an RDMA device as the kernel publishes them under
 * {@code /sys/class/infiniband/<device>}: each port's state ({@code ports/N/state}, "4: ACTIVE")
 * and the IP addresses of the network interfaces it carries, found through the RoCE GID table
 * ({@code ports/N/gid_attrs/ndevs/*}), the soft devices' {@code parent} (rxe, siw) and the PCI
 * function's own interfaces ({@code device/net/*}, IPoIB and iWARP NICs).
 *
 * <p>Plain files, read at each call: no native code, nothing held open. A file that cannot be
 * read (no such attribute on this kernel, an empty GID entry) is skipped.
 */
final class SysfsPorts {
    /** Where the kernel lists the RDMA devices. */
    static final Path SYSFS_INFINIBAND = Path.of("/sys/class/infiniband");

    private SysfsPorts() {
    }

    /**
     * @param device the device name (ibv_get_device_name)
     * @return its ports from {@link #SYSFS_INFINIBAND}, with the addresses of this host's interfaces
     */
    static List<DevicePort> of(String device) {
        return read(SYSFS_INFINIBAND, device, SysfsPorts::interfaceAddresses);
    }

    /**
     * read() - the ports of one device under a sysfs root (tests pass a copy of the tree).
     *
     * @param root the {@code /sys/class/infiniband} directory
     * @param device the device name
     * @param addressesOf the IP addresses of a network interface by name (empty when unknown)
     * @return the ports in number order; empty when the device has no {@code ports} directory
     */
    static List<DevicePort> read(Path root, String device, Function<String, List<InetAddress>> addressesOf) {
        Path dir = root.resolve(device);
        TreeMap<Integer, Path> ports = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir.resolve("ports"))) {
            for (Path p : entries) {
                try {
                    ports.put(Integer.parseInt(p.getFileName().toString()), p);
                } catch (NumberFormatException notAPort) {
                    // not a port directory
                }
            }
        } catch (IOException noPorts) {
            return List.of();
        }
        Set<String> deviceNetdevs = new TreeSet<>();
        readLine(dir.resolve("parent")).ifPresent(deviceNetdevs::add);
        deviceNetdevs.addAll(names(dir.resolve("device").resolve("net")));
        List<DevicePort> result = new ArrayList<>();
        for (var port : ports.entrySet()) {
            Set<String> netdevs = new TreeSet<>(deviceNetdevs);
            netdevs.addAll(gidNetdevs(port.getValue()));
            List<InetAddress> addresses = new ArrayList<>();
            for (String netdev : netdevs) {
                for (InetAddress a : addressesOf.apply(netdev)) {
                    if (!addresses.contains(a)) {
                        addresses.add(a);
                    }
                }
            }
            addresses.sort(Comparator.comparing(a -> a instanceof Inet4Address ? 0 : 1));
            result.add(new DevicePort(port.getKey(), state(port.getValue()), addresses));
        }
        return result;
    }

    /** @return the state from "N: NAME", or UNKNOWN when unreadable */
    private static PortState state(Path port) {
        return readLine(port.resolve("state")).map(line -> {
            int colon = line.indexOf(':');
            try {
                return PortState.of(Integer.parseInt((colon < 0 ? line : line.substring(0, colon)).trim()));
            } catch (NumberFormatException e) {
                return PortState.UNKNOWN;
            }
        }).orElse(PortState.UNKNOWN);
    }

    private static Set<String> gidNetdevs(Path port) {
        Set<String> netdevs = new TreeSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(port.resolve("gid_attrs").resolve("ndevs"))) {
            for (Path entry : entries) {
                readLine(entry).ifPresent(netdevs::add); // an unused GID entry reads as EINVAL: skipped
            }
        } catch (IOException noGidTable) {
            // InfiniBand and iWARP ports have no netdev per GID
        }
        return netdevs;
    }

    private static List<String> names(Path directory) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            entries.forEach(p -> names.add(p.getFileName().toString()));
        } catch (IOException none) {
            // no such directory
        }
        return names;
    }

    private static Optional<String> readLine(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? Optional.empty() : Optional.of(text);
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /** @return the addresses of this host's interface of that name; empty when it has none or is unknown */
    static List<InetAddress> interfaceAddresses(String netdev) {
        try {
            NetworkInterface nic = NetworkInterface.getByName(netdev);
            return nic == null ? List.of() : Collections.list(nic.getInetAddresses());
        } catch (SocketException e) {
            return List.of();
        }
    }
}
