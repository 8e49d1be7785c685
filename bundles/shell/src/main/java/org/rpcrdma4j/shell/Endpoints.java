package org.rpcrdma4j.shell;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Endpoints - how the commands print addresses and turn a listening address into one a local
 * client can connect to.
 */
final class Endpoints {
    private Endpoints() {
    }

    /**
     * @param address an address, or null
     * @return "host:port" with the numeric host ("[v6]:port" for IPv6), or "-" for null
     */
    static String format(InetSocketAddress address) {
        if (address == null) {
            return "-";
        }
        InetAddress ip = address.getAddress();
        String host = ip == null ? address.getHostString() : ip.getHostAddress();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return host + ":" + address.getPort();
    }

    /**
     * connectable() - the address a client on this host connects to for a listener bound to
     * {@code bound}: the loopback address of the same family when the listener is bound to the
     * wildcard address, {@code bound} itself otherwise.
     *
     * @param bound a listening address, not null
     * @return the address to connect to
     */
    static InetSocketAddress connectable(InetSocketAddress bound) {
        InetAddress ip = bound.getAddress();
        if (ip == null || !ip.isAnyLocalAddress()) {
            return bound;
        }
        byte[] loopback = ip.getAddress().length == 4 ? new byte[] {127, 0, 0, 1}
                : new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(loopback), bound.getPort());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("a 4 or 16 byte address is always valid", e);
        }
    }
}
