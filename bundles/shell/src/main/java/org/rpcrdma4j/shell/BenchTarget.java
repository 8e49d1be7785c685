package org.rpcrdma4j.shell;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * BenchTarget - the (program, version) the benchmark calls NULL of: one the host server serves,
 * because an unregistered one is answered PROG_UNAVAIL, which is not a successful call.
 *
 * @param program the program number
 * @param version the program version
 */
record BenchTarget(int program, int version) {
    /** NFS, the default when it is registered. */
    static final BenchTarget NFS_V3 = new BenchTarget(100003, 3);

    @Override
    public String toString() {
        return Integer.toUnsignedString(program) + " v" + Integer.toUnsignedString(version);
    }

    /**
     * fromProperties() - the programs one {@code RpcDispatchable} service registers, read from its
     * {@code rpc.program} and {@code rpc.version} properties as the host server reads them.
     *
     * @param program the {@code rpc.program} value: a number or its decimal string (0..2^32-1)
     * @param versions the {@code rpc.version} value: one such value, an array or a collection
     * @return one target per version; empty when either value is missing or not a number
     */
    static List<BenchTarget> fromProperties(Object program, Object versions) {
        Integer number = toInt(program);
        if (number == null || versions == null) {
            return List.of();
        }
        List<Object> values = new ArrayList<>();
        if (versions instanceof Collection<?> c) {
            values.addAll(c);
        } else if (versions.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(versions); i++) {
                values.add(Array.get(versions, i));
            }
        } else {
            values.add(versions);
        }
        List<BenchTarget> targets = new ArrayList<>();
        for (Object v : values) {
            Integer version = toInt(v);
            if (version != null) {
                targets.add(new BenchTarget(number, version));
            }
        }
        return targets;
    }

    /**
     * choose() - picks the target among the registered ones.
     *
     * <p>With a program (and version) given: that one, which MUST be registered; with a program
     * only: its highest registered version. With neither: NFSv3 when it is registered, otherwise
     * the registered program with the lowest number (its highest version).
     *
     * @param registered what the host server serves
     * @param program the program asked for, or null
     * @param version the version asked for, or null (ignored without a program)
     * @return the target
     * @throws IllegalArgumentException when nothing is registered, or the program or version asked
     *         for is not, naming what is
     */
    static BenchTarget choose(List<BenchTarget> registered, Integer program, Integer version) {
        if (registered.isEmpty()) {
            throw new IllegalArgumentException("no RPC program is registered with the host server, so NULL calls would "
                    + "be answered PROG_UNAVAIL; register one (e.g. feature rpcrdma4j-nfs3 with an export)");
        }
        Comparator<BenchTarget> order = Comparator.comparingInt(BenchTarget::program)
                .thenComparing(Comparator.comparingInt(BenchTarget::version).reversed());
        List<BenchTarget> sorted = registered.stream().distinct().sorted(order).toList();
        if (program == null) {
            return sorted.contains(NFS_V3) ? NFS_V3 : sorted.get(0);
        }
        for (BenchTarget t : sorted) {
            if (t.program == program && (version == null || t.version == version)) {
                return t;
            }
        }
        throw new IllegalArgumentException("program " + program + (version == null ? "" : " v" + version)
                + " is not registered; registered: " + sorted.stream().map(BenchTarget::toString).collect(Collectors.joining(", ")));
    }

    private static Integer toInt(Object value) {
        // As the host server reads them: unsigned 32-bit numbers, as numbers or decimal strings.
        long number;
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            number = ((Number) value).longValue();
        } else if (value instanceof String s) {
            try {
                number = Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                return null;
            }
        } else {
            return null;
        }
        return number < 0 || number > 0xFFFF_FFFFL ? null : (int) number;
    }
}
