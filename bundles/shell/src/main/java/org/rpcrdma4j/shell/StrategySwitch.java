package org.rpcrdma4j.shell;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.karaf.shell.support.table.ShellTable;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * StrategySwitch - the logic of {@code rpcrdma:strategy}: list the registration strategies, and
 * switch the active one persistently (through Config Admin, which the transport component applies
 * in its modified method), then check that the transports really use it.
 *
 * <p>The switch never writes the configuration for a name no transport has registered: a typo
 * MUST NOT end up in {@code etc/org.rpcrdma4j.transport.cfg}.
 */
final class StrategySwitch {
    /** The transport component's configuration PID. */
    static final String PID = "org.rpcrdma4j.transport";
    /** Its property naming the active strategy. */
    static final String PROPERTY = "activeStrategy";

    /** Writes the strategy's name into the transport's configuration. */
    @FunctionalInterface
    interface ConfigWriter {
        /**
         * @param strategy the name to set as {@value StrategySwitch#PROPERTY}
         * @throws IOException when Config Admin refuses
         */
        void write(String strategy) throws IOException;
    }

    /** Waits between two polls of the transports. */
    @FunctionalInterface
    interface Pause {
        /** @throws InterruptedException when interrupted (Ctrl-C) */
        void pause() throws InterruptedException;
    }

    private StrategySwitch() {
    }

    /**
     * @param controls the transports
     * @return the strategies any of them has registered, each once, in the transports' order
     *         (the active one first)
     */
    static List<String> registered(List<RdmaTransportControl> controls) {
        Set<String> names = new LinkedHashSet<>();
        for (RdmaTransportControl c : controls) {
            names.addAll(c.strategies());
        }
        return new ArrayList<>(names);
    }

    /**
     * @param controls the transports
     * @return one row per transport and registered strategy, the active one marked with "*"
     */
    static ShellTable strategies(List<RdmaTransportControl> controls) {
        ShellTable table = new ShellTable();
        table.column("Transport");
        table.column("Strategy");
        table.column("Active");
        table.emptyTableText("(no registration strategy is registered)");
        for (RdmaTransportControl c : controls) {
            String active = c.activeStrategy();
            for (String s : c.strategies()) {
                table.addRow().addContent(c.name(), s, s.equals(active) ? "*" : "");
            }
        }
        return table;
    }

    /**
     * switchTo() - checks the name, writes the configuration, and polls the transports until
     * every one reports the strategy active or the polls run out.
     *
     * @param name the strategy wanted
     * @param controls the live transports, asked afresh at every poll (a transport component that
     *        is re-activated registers a new service)
     * @param writer writes the configuration
     * @param polls how many times to look, at least 1
     * @param pause waits between two looks
     * @return the line to print on success
     * @throws IllegalStateException when no transport runs, or the strategy did not become active
     *         (naming what is active and what is registered)
     * @throws IllegalArgumentException when no transport registered the name (nothing written)
     * @throws IOException when Config Admin refused the update
     * @throws InterruptedException when interrupted while waiting (the configuration is written)
     */
    static String switchTo(String name, Supplier<List<RdmaTransportControl>> controls, ConfigWriter writer, int polls,
            Pause pause) throws IOException, InterruptedException {
        List<RdmaTransportControl> now = controls.get();
        if (now.isEmpty()) {
            throw new IllegalStateException(TransportListing.NO_RDMA_TRANSPORT);
        }
        List<String> registered = registered(now);
        if (!registered.contains(name)) {
            throw new IllegalArgumentException("no registration strategy named '" + name + "'; registered: "
                    + names(registered));
        }
        writer.write(name);
        for (int poll = 1; ; poll++) {
            now = controls.get();
            if (!now.isEmpty() && now.stream().allMatch(c -> name.equals(c.activeStrategy()))) {
                return "Active registration strategy: " + name + " (" + PID + " " + PROPERTY + "=" + name + ")";
            }
            if (poll >= polls) {
                break;
            }
            pause.pause();
        }
        List<String> active = now.stream().map(c -> c.name() + ": " + c.activeStrategy()).toList();
        throw new IllegalStateException(PROPERTY + "=" + name + " was written to " + PID + " but the transport did not "
                + "apply it (active: " + (active.isEmpty() ? "no transport running" : String.join(", ", active))
                + "; registered: " + names(registered(now)) + "); see the transport's log");
    }

    /**
     * writeStrategy() - sets {@value #PROPERTY} in the transport's configuration, keeping every
     * other property (rpcrdma:strategy and the transport MBean's ActiveStrategy both write here).
     *
     * @param admin Config Admin, or null when none runs
     * @param strategy the name to write
     * @throws IOException when Config Admin refuses
     * @throws IllegalStateException when no Config Admin runs
     */
    static void writeStrategy(ConfigurationAdmin admin, String strategy) throws IOException {
        if (admin == null) {
            throw new IllegalStateException("no Config Admin service is running (feature config)");
        }
        Configuration configuration = admin.getConfiguration(PID, null);
        Dictionary<String, Object> properties = configuration.getProperties();
        if (properties == null) {
            properties = new Hashtable<>();
        }
        properties.put(PROPERTY, strategy);
        configuration.update(properties);
    }

    private static String names(List<String> names) {
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
