package org.rpcrdma4j.verbs;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * One port of a {@link VerbsDevice} as an operator sees it: its state and the IP addresses of the
 * network interfaces it carries (the addresses RDMA CM clients connect to). The link layer is the
 * device's {@link DeviceCapabilities#transportType()}.
 *
 * @param number the port number, from 1
 * @param state its logical state
 * @param addresses the IP addresses of its network interfaces (IPv4 first), possibly empty
 */
public record DevicePort(int number, PortState state, List<InetAddress> addresses) {
    /**
     * Checks and copies the values.
     *
     * @throws IllegalArgumentException when the number is below 1
     */
    public DevicePort {
        if (number < 1) {
            throw new IllegalArgumentException("port number must be at least 1: " + number);
        }
        Objects.requireNonNull(state, "state");
        addresses = List.copyOf(addresses);
    }
}
