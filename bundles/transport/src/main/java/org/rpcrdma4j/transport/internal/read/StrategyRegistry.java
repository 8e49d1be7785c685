package org.rpcrdma4j.transport.internal.read;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import org.rpcrdma4j.transport.spi.RegistrationStrategy;

/**
 * StrategyRegistry - the registration strategies a transport knows and the one new READs use.
 *
 * <p>The first strategy added becomes active; when the active one is removed, the first one left
 * takes over (none: calls with read chunks get ERR_CHUNK). Threading: safe from any thread; the
 * completion thread reads {@link #active()} once per call and watches {@link #version()} to
 * retire the pools of removed strategies.
 */
public final class StrategyRegistry {
    private final CopyOnWriteArrayList<RegistrationStrategy> registered = new CopyOnWriteArrayList<>();
    /** Told after every {@link #version()} change (the completion loops, which sleep until woken); must not block. */
    private final Runnable onChange;
    private volatile RegistrationStrategy active;
    private volatile int version;

    /** @param onChange run after a strategy was added or removed, on the caller's thread; must not block */
    public StrategyRegistry(Runnable onChange) {
        this.onChange = Objects.requireNonNull(onChange, "onChange");
    }

    /** @param strategy a strategy to offer; adding it twice does nothing */
    public synchronized void add(RegistrationStrategy strategy) {
        Objects.requireNonNull(strategy, "strategy");
        if (registered.addIfAbsent(strategy)) {
            if (active == null) {
                active = strategy;
            }
            version++;
            onChange.run();
        }
    }

    /** @param strategy a strategy going away; its pools close once their sinks are back */
    public synchronized void remove(RegistrationStrategy strategy) {
        if (registered.remove(strategy)) {
            if (active == strategy) {
                active = registered.isEmpty() ? null : registered.get(0);
            }
            version++;
            onChange.run();
        }
    }

    /**
     * activate() - make the strategy of that name the one new calls use.
     *
     * @throws IllegalArgumentException when no strategy of that name is registered
     */
    public synchronized void activate(String name) {
        for (RegistrationStrategy s : registered) {
            if (s.name().equals(name)) {
                active = s;
                return;
            }
        }
        throw new IllegalArgumentException("no registration strategy named " + name + " is registered");
    }

    /** @return the active strategy, or null */
    public RegistrationStrategy active() {
        return active;
    }

    /** @return the registered strategies (a live, unmodifiable view) */
    public List<RegistrationStrategy> registered() {
        return java.util.Collections.unmodifiableList(registered);
    }

    public int version() {
        return version;
    }
}
