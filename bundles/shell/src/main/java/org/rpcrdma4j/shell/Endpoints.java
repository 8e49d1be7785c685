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
     * {@code bound}: 127.0.0.1 when the listener is bound to a wildcard address (Java binds
     * {@code ::} dual-stack, so IPv4 loopback reaches both; DiSNI speaks IPv4 only), {@code bound}
     * itself otherwise.
     *
     * @param bound a listening address, not null
     * @return the address to connect to
     */
    static InetSocketAddress connectable(InetSocketAddress bound) {
        InetAddress ip = bound.getAddress();
        if (ip == null || !ip.isAnyLocalAddress()) {
            return bound;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), bound.getPort());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("a 4 byte address is always valid", e);
        }
    }
}
