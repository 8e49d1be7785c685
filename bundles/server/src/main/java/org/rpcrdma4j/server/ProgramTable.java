package org.rpcrdma4j.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;

/**
 * The live table of the RPC programs the host serves, keyed by (program, version).
 *
 * <p>Programs are registered and unregistered at any time (the OSGi whiteboard does it as
 * {@code RpcDispatchable} services come and go). Transports either look a program up for
 * each call ({@link #lookup}) or follow the table through a {@link Listener}.
 *
 * <p>Threading: every method is safe to call from any thread. Listener callbacks run on
 * the thread that changed the table, serialised with every other change, so a listener
 * sees the additions and removals in the order they happened and never one twice.
 */
public final class ProgramTable {

    /** Told of every program added to or removed from the table. */
    public interface Listener {
        /** The program now answers calls for {@code program}. */
        void programAdded(OncRpcProgram program, RpcDispatchable dispatchable);

        /** The program no longer answers calls for {@code program}. */
        void programRemoved(OncRpcProgram program, RpcDispatchable dispatchable);
    }

    private final Map<OncRpcProgram, RpcDispatchable> programs = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Object changeLock = new Object();
    /**
     * What {@link #lookup} reads: the table's (program, version) pairs as sorted longs beside their
     * dispatchables, rebuilt under {@link #changeLock} on every change (rare) and published whole,
     * so that the per-call lookup is a binary search that allocates nothing (a map keyed by
     * {@link OncRpcProgram} would need a new key object per call).
     */
    private volatile Index index = Index.EMPTY;

    /**
     * Adds a program.
     *
     * @throws IllegalStateException if another dispatchable already serves this program and
     *         version: two services claiming one (program, version) is a deployment error
     *         that must be seen, not silently resolved
     */
    public void register(OncRpcProgram program, RpcDispatchable dispatchable) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(dispatchable, "dispatchable");
        synchronized (changeLock) {
            RpcDispatchable present = programs.putIfAbsent(program, dispatchable);
            if (present != null && present != dispatchable) {
                throw new IllegalStateException("RPC program " + describe(program)
                        + " is already served by " + present + "; refusing " + dispatchable);
            }
            if (present == null) {
                index = Index.of(programs);
                for (Listener listener : listeners) {
                    listener.programAdded(program, dispatchable);
                }
            }
        }
    }

    /**
     * Removes a program if, and only if, it is served by this dispatchable.
     *
     * @return whether the table changed
     */
    public boolean unregister(OncRpcProgram program, RpcDispatchable dispatchable) {
        synchronized (changeLock) {
            if (!programs.remove(program, dispatchable)) {
                return false;
            }
            index = Index.of(programs);
            for (Listener listener : listeners) {
                listener.programRemoved(program, dispatchable);
            }
            return true;
        }
    }

    /** The dispatchable serving this program and version, or {@code null}. */
    public RpcDispatchable lookup(int program, int version) {
        return index.find(Index.key(program, version));
    }

    /** The sorted (program, version) keys and their dispatchables; immutable once built. */
    private static final class Index {
        static final Index EMPTY = new Index(new long[0], new RpcDispatchable[0]);
        private final long[] keys;
        private final RpcDispatchable[] values;

        private Index(long[] keys, RpcDispatchable[] values) {
            this.keys = keys;
            this.values = values;
        }

        static long key(int program, int version) {
            return ((long) program << 32) | (version & 0xffff_ffffL);
        }

        static long key(OncRpcProgram program) {
            return key(program.getNumber(), program.getVersion());
        }

        /** Assumptions: {@code programs} does not change meanwhile (the caller holds the change lock). */
        static Index of(Map<OncRpcProgram, RpcDispatchable> programs) {
            List<Map.Entry<OncRpcProgram, RpcDispatchable>> entries = new ArrayList<>(programs.entrySet());
            entries.sort(Comparator.comparingLong(e -> key(e.getKey())));
            long[] keys = new long[entries.size()];
            RpcDispatchable[] values = new RpcDispatchable[entries.size()];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = key(entries.get(i).getKey());
                values[i] = entries.get(i).getValue();
            }
            return new Index(keys, values);
        }

        RpcDispatchable find(long key) {
            int at = Arrays.binarySearch(keys, key);
            return at >= 0 ? values[at] : null;
        }
    }

    /** A snapshot of the table. */
    public Map<OncRpcProgram, RpcDispatchable> snapshot() {
        return Map.copyOf(programs);
    }

    /**
     * Adds a listener and replays every program already in the table to it, atomically with
     * respect to changes: the listener misses nothing and sees nothing twice.
     */
    public void addListener(Listener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (changeLock) {
            listeners.add(listener);
            for (Map.Entry<OncRpcProgram, RpcDispatchable> entry : new ArrayList<>(programs.entrySet())) {
                listener.programAdded(entry.getKey(), entry.getValue());
            }
        }
    }

    /** Removes a listener; it is told of no further change. */
    public void removeListener(Listener listener) {
        synchronized (changeLock) {
            listeners.remove(listener);
        }
    }

    /** "100003/3" for program 100003 version 3. */
    public static String describe(OncRpcProgram program) {
        return program.getNumber() + "/" + program.getVersion();
    }
}
