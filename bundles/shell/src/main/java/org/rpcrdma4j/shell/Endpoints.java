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
     * @return "host:port" with the numeric host ("[v6]:port" for IPv6, its longest run of zero
     *         groups shortened to "::" as RFC 5952 §4.2 says), or "-" for null
     */
    static String format(InetSocketAddress address) {
        if (address == null) {
            return "-";
        }
        InetAddress ip = address.getAddress();
        String host = ip == null ? address.getHostString() : ip.getHostAddress();
        if (host.indexOf(':') >= 0) {
            host = "[" + compress(host) + "]";
        }
        return host + ":" + address.getPort();
    }

    /**
     * compress() - shortens Java's full IPv6 form ("0:0:0:0:0:0:0:1", groups without leading
     * zeros) to RFC 5952's: the longest run of two or more zero groups, the first of equal ones,
     * becomes "::". A scope ("%eth0") is kept.
     */
    static String compress(String ipv6) {
        int scope = ipv6.indexOf('%');
        String suffix = scope < 0 ? "" : ipv6.substring(scope);
        String[] groups = (scope < 0 ? ipv6 : ipv6.substring(0, scope)).split(":", -1);
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < groups.length; ) {
            int j = i;
            while (j < groups.length && groups[j].equals("0")) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        if (bestStart < 0) {
            return ipv6;
        }
        String head = String.join(":", java.util.Arrays.copyOfRange(groups, 0, bestStart));
        String tail = String.join(":", java.util.Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
        return head + "::" + tail + suffix;
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
