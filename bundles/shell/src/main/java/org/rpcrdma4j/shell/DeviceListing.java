package org.rpcrdma4j.shell;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.karaf.shell.support.table.ShellTable;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.DevicePort;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.VerbsDevice;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * DeviceListing - the table of {@code rpcrdma:devices}: one row per provider, device and port
 * (a device without port information gets one row), with the port's state, the link layer, the
 * IP addresses, and the capabilities the transport sizes itself by. A provider that cannot list
 * its devices gets a row saying why; one without devices a row saying so.
 */
final class DeviceListing {
    /** Printed when no verbs provider service is registered. */
    static final String NO_PROVIDER = "No verbs provider is registered (install rpcrdma4j-verbs-loopback or rpcrdma4j-verbs-disni)";

    private DeviceListing() {
    }

    /**
     * @param providers the registered providers
     * @return the table
     */
    static ShellTable devices(List<VerbsProvider> providers) {
        ShellTable table = new ShellTable();
        table.column("Provider");
        table.column("Device");
        table.column("Port");
        table.column("State");
        table.column("Link layer");
        table.column("Addresses");
        table.column("Fast reg");
        table.column("Remote inv");
        table.column("READ depth").alignRight();
        table.column("SGEs send/recv/read").alignRight();
        table.emptyTableText(NO_PROVIDER);
        for (VerbsProvider provider : providers) {
            List<VerbsDevice> devices;
            try {
                devices = provider.devices();
            } catch (VerbsException | RuntimeException e) {
                table.addRow().addContent(provider.name(), "(cannot list: " + e.getMessage() + ")", "", "", "", "", "", "", "", "");
                continue;
            }
            if (devices.isEmpty()) {
                table.addRow().addContent(provider.name(), "(no device with an IPv4 address)", "", "", "", "", "", "", "", "");
            }
            for (VerbsDevice device : devices) {
                List<DevicePort> ports = device.ports();
                if (ports.isEmpty()) {
                    addRow(table, provider, device, null);
                }
                for (DevicePort port : ports) {
                    addRow(table, provider, device, port);
                }
            }
        }
        return table;
    }

    private static void addRow(ShellTable table, VerbsProvider provider, VerbsDevice device, DevicePort port) {
        DeviceCapabilities c = device.capabilities();
        table.addRow().addContent(provider.name(), device.name(),
                port == null ? "-" : String.valueOf(port.number()),
                port == null ? "-" : port.state().name(),
                linkLayer(c.transportType()),
                port == null ? "-" : addresses(port.addresses()),
                c.fastRegistration() ? "yes (" + c.maxFastRegistrationLength() + " B)" : "no",
                c.remoteInvalidation() ? "yes" : "no",
                c.maxOutstandingReads() + "/" + c.maxIncomingReads(),
                c.maxSendSge() + "/" + c.maxReceiveSge() + "/" + c.maxReadSge());
    }

    /** @return the link layer as operators name it */
    static String linkLayer(TransportType type) {
        return switch (type) {
            case INFINIBAND -> "InfiniBand";
            case ROCE -> "Ethernet (RoCE)";
            case IWARP -> "iWARP";
        };
    }

    private static String addresses(List<InetAddress> addresses) {
        if (addresses.isEmpty()) {
            return "-";
        }
        return addresses.stream().map(a -> a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress())
                .collect(Collectors.joining(", "));
    }
}
