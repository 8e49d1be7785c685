package org.rpcrdma4j.nfs3;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * ClientNetwork - an IPv4 or IPv6 network in CIDR notation that an export rule admits.
 *
 * <p>Only address literals are accepted ({@code 10.0.0.0/8}, {@code 192.0.2.7},
 * {@code 2001:db8::/32}, {@code *} for every client): host names would make every call
 * depend on a DNS lookup. An IPv4-mapped IPv6 peer ({@code ::ffff:a.b.c.d}) matches the
 * IPv4 networks.
 */
public final class ClientNetwork {

    private final String text;
    private final byte[] network;
    private final int prefixLength;

    private ClientNetwork(String text, byte[] network, int prefixLength) {
        this.text = text;
        this.network = network;
        this.prefixLength = prefixLength;
    }

    /**
     * Parses a CIDR network, a single address, or {@code *}.
     *
     * @param cidr the text, e.g. {@code 127.0.0.1/32}
     * @return the network, with host bits cleared
     * @throws IllegalArgumentException naming the text if it is not an address literal with
     *     a prefix length in range
     */
    public static ClientNetwork parse(String cidr) {
        if (cidr == null || cidr.isBlank()) {
            throw new IllegalArgumentException("client network: empty");
        }
        String trimmed = cidr.trim();
        if (trimmed.equals("*")) {
            return new ClientNetwork("*", null, 0);
        }
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        byte[] bytes = literal(address, cidr);
        int prefix = slash < 0 ? bytes.length * 8 : prefixLength(trimmed.substring(slash + 1), bytes.length * 8, cidr);
        for (int bit = prefix; bit < bytes.length * 8; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return new ClientNetwork(trimmed, bytes, prefix);
    }

    /** Whether the address lies in this network. */
    public boolean contains(InetAddress address) {
        if (network == null) {
            return true;
        }
        byte[] candidate = normalize(address).getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        for (int bit = 0; bit < prefixLength; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((candidate[bit / 8] & mask) != (network[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** The network as configured, e.g. {@code 10.0.0.0/8}. */
    @Override
    public String toString() {
        return text;
    }

    private static InetAddress normalize(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] b = address.getAddress();
            boolean mapped = b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = b[i] == 0;
            }
            if (mapped) {
                try {
                    return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                } catch (UnknownHostException e) {
                    throw new IllegalStateException("four bytes are always an IPv4 address", e);
                }
            }
        }
        return address;
    }

    private static byte[] literal(String address, String cidr) {
        boolean ipv6 = address.indexOf(':') >= 0;
        boolean ipv4 = !ipv6 && address.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.');
        boolean hex = address.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        if (!(ipv4 || (ipv6 && hex)) || address.isEmpty()) {
            throw new IllegalArgumentException("client network '" + cidr + "': not an IP address literal");
        }
        if (ipv4 && address.split("\\.", -1).length != 4) {
            throw new IllegalArgumentException("client network '" + cidr + "': an IPv4 address has four parts");
        }
        try {
            InetAddress parsed = InetAddress.getByName(address);
            if (ipv4 != (parsed instanceof Inet4Address)) {
                throw new IllegalArgumentException("client network '" + cidr + "': ambiguous address family");
            }
            return parsed.getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("client network '" + cidr + "': " + e.getMessage(), e);
        }
    }

    private static int prefixLength(String text, int max, String cidr) {
        try {
            int value = Integer.parseInt(text);
            if (value < 0 || value > max) {
                throw new IllegalArgumentException("client network '" + cidr + "': prefix length must be 0.." + max);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("client network '" + cidr + "': prefix length is not a number", e);
        }
    }
}
