package org.rpcrdma4j.nfs3;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Export - a local directory served under a client-visible path, with the rules saying which
 * clients may use it and how.
 *
 * <p>The first rule whose network admits a peer applies (exports(5) order). Immutable.
 */
public final class Export {

    private final String path;
    private final Path directory;
    private final List<ExportRule> rules;

    /**
     * Creates an export.
     *
     * @param path the path clients mount, absolute, e.g. {@code /export}
     * @param directory the local directory served, absolute (existence is checked when the
     *     service starts)
     * @param rules at least one rule, first match wins
     * @throws IllegalArgumentException naming the setting that is invalid
     */
    public Export(String path, Path directory, List<ExportRule> rules) {
        if (path == null || !path.startsWith("/") || path.length() > Mount3.MNTPATHLEN
                || path.contains("//") || (path.length() > 1 && path.endsWith("/"))
                || List.of(path.split("/")).stream().anyMatch(c -> c.equals(".") || c.equals(".."))) {
            throw new IllegalArgumentException("export path '" + path
                    + "': must be absolute and normalized, without '.', '..', '//' or a trailing '/'");
        }
        if (directory == null || !directory.isAbsolute()) {
            throw new IllegalArgumentException("export directory '" + directory + "' of " + path + ": must be absolute");
        }
        if (rules == null || rules.isEmpty()) {
            throw new IllegalArgumentException("export rules of " + path + ": at least one client rule is required");
        }
        this.path = path;
        this.directory = directory.normalize();
        this.rules = List.copyOf(rules);
    }

    /**
     * Parses an exports(5)-style line: {@code <path> <directory> <rule>...}, e.g.
     * {@code /export /srv/data 127.0.0.1/32(rw,no_root_squash) 10.0.0.0/8(ro)}.
     *
     * @throws IllegalArgumentException naming the setting that is invalid
     */
    public static Export parse(String line) {
        String[] fields = line == null ? new String[0] : line.trim().split("\\s+");
        if (fields.length < 3) {
            throw new IllegalArgumentException("export line '" + line + "': expected <path> <directory> <rule>...");
        }
        List<ExportRule> rules = new java.util.ArrayList<>();
        for (int i = 2; i < fields.length; i++) {
            rules.add(ExportRule.parse(fields[i]));
        }
        return new Export(fields[0], Path.of(fields[1]), rules);
    }

    /** The path clients mount. */
    public String path() {
        return path;
    }

    /** The local directory served. */
    public Path directory() {
        return directory;
    }

    /** The client rules, in match order. */
    public List<ExportRule> rules() {
        return rules;
    }

    /** The first rule admitting the peer, or empty if the peer may not use this export. */
    public Optional<ExportRule> ruleFor(InetAddress peer) {
        for (ExportRule rule : rules) {
            if (rule.admits(peer)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return path + " " + directory + " " + rules;
    }
}
