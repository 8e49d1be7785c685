package org.rpcrdma4j.nfs3.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MountTable - the advisory list of (client host, mounted path) pairs MOUNT keeps for DUMP.
 *
 * <p>As in every MOUNT implementation it grants nothing: access is checked on every NFS call.
 * Thread-safe.
 */
public final class MountTable {

    /** One mount: the client's address and the path it mounted. */
    public record Entry(String host, String path) {
    }

    private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

    /** Records a successful MNT. */
    public void add(String host, String path) {
        entries.add(new Entry(host, path));
    }

    /** Forgets one mount (UMNT). */
    public void remove(String host, String path) {
        entries.remove(new Entry(host, path));
    }

    /** Forgets every mount of a host (UMNTALL). */
    public void removeAll(String host) {
        entries.removeIf(e -> e.host().equals(host));
    }

    /** A snapshot of the list. */
    public List<Entry> snapshot() {
        return new ArrayList<>(entries);
    }
}
