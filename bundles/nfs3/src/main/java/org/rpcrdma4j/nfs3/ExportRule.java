package org.rpcrdma4j.nfs3;

import java.net.InetAddress;
import java.util.Locale;

/**
 * ExportRule - which clients may use an export, and how: one {@code network(options)} item
 * of an exports(5)-style line.
 *
 * <p>Options: {@code rw} or {@code ro} (default {@code ro}); {@code root_squash} (default),
 * {@code no_root_squash} or {@code all_squash}; {@code anonuid=N} and {@code anongid=N}
 * (default 65534), the identity squashed and AUTH_NONE callers get. Immutable.
 */
public final class ExportRule {

    /** Identity of "nobody", the default anonymous uid and gid. */
    public static final int NOBODY = 65534;

    private final ClientNetwork network;
    private final boolean readOnly;
    private final boolean rootSquash;
    private final boolean allSquash;
    private final int anonUid;
    private final int anonGid;

    private ExportRule(ClientNetwork network, boolean readOnly, boolean rootSquash, boolean allSquash,
            int anonUid, int anonGid) {
        this.network = network;
        this.readOnly = readOnly;
        this.rootSquash = rootSquash;
        this.allSquash = allSquash;
        this.anonUid = anonUid;
        this.anonGid = anonGid;
    }

    /**
     * Parses {@code network} or {@code network(option,option,...)}.
     *
     * @param text e.g. {@code 127.0.0.1/32(rw,no_root_squash)} or {@code 10.0.0.0/8(ro,anonuid=1000)}
     * @return the rule
     * @throws IllegalArgumentException naming the network or option that is invalid
     */
    public static ExportRule parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("export rule: empty");
        }
        String trimmed = text.trim();
        int open = trimmed.indexOf('(');
        String options = "";
        String network = trimmed;
        if (open >= 0) {
            if (!trimmed.endsWith(")")) {
                throw new IllegalArgumentException("export rule '" + text + "': options must end with ')'");
            }
            network = trimmed.substring(0, open);
            options = trimmed.substring(open + 1, trimmed.length() - 1);
        }
        return withOptions(ClientNetwork.parse(network), options);
    }

    private static ExportRule withOptions(ClientNetwork network, String options) {
        boolean readOnly = true;
        boolean rootSquash = true;
        boolean allSquash = false;
        int anonUid = NOBODY;
        int anonGid = NOBODY;
        for (String raw : options.split(",")) {
            String option = raw.trim().toLowerCase(Locale.ROOT);
            if (option.isEmpty()) {
                continue;
            }
            switch (option) {
                case "rw": readOnly = false; break;
                case "ro": readOnly = true; break;
                case "root_squash": rootSquash = true; break;
                case "no_root_squash": rootSquash = false; allSquash = false; break;
                case "all_squash": allSquash = true; break;
                default:
                    if (option.startsWith("anonuid=")) {
                        anonUid = id(option, "anonuid");
                    } else if (option.startsWith("anongid=")) {
                        anonGid = id(option, "anongid");
                    } else {
                        throw new IllegalArgumentException("export option '" + raw.trim() + "' is unknown"
                                + " (known: rw, ro, root_squash, no_root_squash, all_squash, anonuid=N, anongid=N)");
                    }
            }
        }
        return new ExportRule(network, readOnly, rootSquash, allSquash, anonUid, anonGid);
    }

    private static int id(String option, String name) {
        String value = option.substring(name.length() + 1);
        try {
            long id = Long.parseLong(value);
            if (id < 0 || id > 0xffffffffL) {
                throw new IllegalArgumentException("export option " + name + "=" + value + ": out of range 0..4294967295");
            }
            return (int) id;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("export option " + name + "=" + value + ": not a number", e);
        }
    }

    /** Whether this rule admits the peer address. */
    public boolean admits(InetAddress peer) {
        return network.contains(peer);
    }

    /** The admitted client network. */
    public ClientNetwork network() {
        return network;
    }

    /** Whether modifications are refused (NFS3ERR_ROFS). */
    public boolean readOnly() {
        return readOnly;
    }

    /** Whether uid 0 and gid 0 are mapped to the anonymous identity. */
    public boolean rootSquash() {
        return rootSquash || allSquash;
    }

    /** Whether every caller is mapped to the anonymous identity. */
    public boolean allSquash() {
        return allSquash;
    }

    /** The uid of squashed and AUTH_NONE callers. */
    public int anonUid() {
        return anonUid;
    }

    /** The gid of squashed and AUTH_NONE callers. */
    public int anonGid() {
        return anonGid;
    }

    @Override
    public String toString() {
        return network + "(" + (readOnly ? "ro" : "rw")
                + (allSquash ? ",all_squash" : rootSquash ? ",root_squash" : ",no_root_squash")
                + ",anonuid=" + Integer.toUnsignedString(anonUid) + ",anongid=" + Integer.toUnsignedString(anonGid) + ")";
    }
}
