package org.rpcrdma4j.server.osgi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;

/**
 * The service properties by which an {@code RpcDispatchable} service says what it serves.
 *
 * <p>{@value #PROGRAM}: the ONC RPC program number (for example 100003 for NFS);
 * {@value #VERSION}: one version or several (an array or collection), for example 3.
 * Numbers may be given as Integer, Long or String.
 */
public final class ProgramProperties {

    /** Service property: the RPC program number. */
    public static final String PROGRAM = "rpc.program";

    /** Service property: the RPC program version(s). */
    public static final String VERSION = "rpc.version";

    private ProgramProperties() {
    }

    /**
     * The (program, version) pairs a service's properties name.
     *
     * @throws IllegalArgumentException naming the property when one is missing or not a
     *         non-negative 32-bit number
     */
    public static List<OncRpcProgram> programs(Map<String, Object> properties) {
        Object program = properties.get(PROGRAM);
        Object versions = properties.get(VERSION);
        if (program == null || versions == null) {
            throw new IllegalArgumentException("service properties " + PROGRAM + " and " + VERSION
                    + " are required, were " + PROGRAM + "=" + program + ", " + VERSION + "=" + versions);
        }
        int number = toNumber(PROGRAM, program);
        List<OncRpcProgram> result = new ArrayList<>();
        for (Object version : values(versions)) {
            result.add(new OncRpcProgram(number, toNumber(VERSION, version)));
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException("service property " + VERSION + " names no version");
        }
        return result;
    }

    private static Collection<?> values(Object value) {
        if (value instanceof Collection<?> collection) {
            return collection;
        }
        if (value instanceof int[] ints) {
            List<Object> list = new ArrayList<>();
            for (int i : ints) {
                list.add(i);
            }
            return list;
        }
        if (value instanceof Object[] array) {
            return List.of(array);
        }
        return List.of(value);
    }

    private static int toNumber(String property, Object value) {
        long number;
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            number = ((Number) value).longValue();
        } else if (value instanceof String text) {
            try {
                number = Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("service property " + property + " must be a number, was '"
                        + text + "'", e);
            }
        } else {
            throw new IllegalArgumentException("service property " + property + " must be a number, was "
                    + value.getClass().getSimpleName() + " " + value);
        }
        if (number < 0 || number > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("service property " + property
                    + " must be 0..4294967295, was " + number);
        }
        return (int) number;
    }
}
