package org.rpcrdma4j.transport.osgi;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * ConfigKeys - the property names of {@link RdmaTransportConfig}, for telling an operator which
 * keys of the configuration are unknown (a typo is otherwise ignored silently) and what kind of
 * value a refused one should have been.
 */
final class ConfigKeys {
    /** Every property name of the metatype, with its type. */
    private static final Map<String, Class<?>> KEYS = new TreeMap<>();

    static {
        for (Method m : RdmaTransportConfig.class.getDeclaredMethods()) {
            KEYS.put(m.getName(), m.getReturnType());
        }
    }

    private ConfigKeys() {
    }

    /**
     * unknown() - one warning per key that no setting has. Keys with a dot are the framework's
     * and Karaf's own ({@code service.pid}, {@code felix.fileinstall.filename},
     * {@code component.name}) and are not looked at.
     *
     * @param properties the configuration's properties
     * @return warnings naming each unknown key and the nearest known one, sorted by key
     */
    static List<String> unknown(Map<String, ?> properties) {
        List<String> warnings = new ArrayList<>();
        for (String key : new TreeMap<>(properties).keySet()) {
            if (key.indexOf('.') < 0 && !KEYS.containsKey(key)) {
                warnings.add("unknown property '" + key + "' ignored" + suggestion(key, KEYS.keySet()));
            }
        }
        return warnings;
    }

    /** @return "a whole number", "true or false" or "a valid value", as the setting's type wants */
    static String kind(String key) {
        Class<?> type = KEYS.get(key);
        if (type == int.class || type == long.class) {
            return "a whole number";
        }
        return type == boolean.class ? "true or false" : "a valid value";
    }

    /** @return "; did you mean 'x'?" naming the candidate nearest to {@code name}, or "" without one */
    static String suggestion(String name, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(name.toLowerCase(), candidate.toLowerCase());
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best == null ? "" : "; did you mean '" + best + "'?";
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
