package org.rpcrdma4j.nfs4j.osgi;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;
import org.rpcrdma4j.nfs3.localfs.UnixStat;
import org.rpcrdma4j.nfs4j.Nfs4jServers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nfs4jExportComponent - dCache nfs4j's NFS servers over a local directory, registered as
 * {@code RpcDispatchable} services for the host server's whiteboard (properties
 * {@code rpc.program}, {@code rpc.version}), so that every transport present serves them. Active
 * only when PID {@value #PID} is configured: nothing is exported by default.
 *
 * <p>A configuration is checked as a whole before it replaces anything: a bad one is refused
 * with one ERROR line naming the property and the fault, and what was served goes on being
 * served. A change of the exports alone is applied to the running servers (NFSv4 clients keep
 * their state); a change of the root, the state directory, the versions or the lease starts new
 * servers and then stops the old ones.
 */
@Component(configurationPid = Nfs4jExportComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = {})
@Designate(ocd = Nfs4jExportConfig.class)
public final class Nfs4jExportComponent {

    /** Configuration PID. */
    public static final String PID = "org.rpcrdma4j.nfs4j";

    private static final Logger LOG = LoggerFactory.getLogger(Nfs4jExportComponent.class);
    private static final String PROGRAM_PROPERTY = "rpc.program";
    private static final String VERSION_PROPERTY = "rpc.version";

    private final BundleContext context;
    private Nfs4jServers servers;
    private final List<ServiceRegistration<RpcDispatchable>> registrations = new ArrayList<>();

    /** Starts serving the configuration, or says in one ERROR line why it cannot. */
    @Activate
    public Nfs4jExportComponent(BundleContext context, Map<String, Object> properties) {
        this.context = context;
        modified(properties);
    }

    /** Applies a new configuration, or refuses it and keeps serving the previous one. */
    @Modified
    public synchronized void modified(Map<String, Object> properties) {
        Nfs4jServers.Settings next;
        try {
            next = settingsOf(properties);
            if (servers != null && !servers.needsRestartFor(next)) {
                servers.replaceExports(next.exports());
                LOG.info("{} (exports changed)", servers.describe());
                return;
            }
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage());
            return;
        }
        Nfs4jServers started;
        try {
            started = new Nfs4jServers(next);
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage());
            return;
        } catch (IOException | RuntimeException e) {
            refuse("cannot open " + next.root() + " with state in " + next.stateDirectory() + ": " + e);
            return;
        }
        stopServing();
        servers = started;
        for (Map.Entry<OncRpcProgram, RpcDispatchable> program : started.programs().entrySet()) {
            Hashtable<String, Object> serviceProperties = new Hashtable<>();
            serviceProperties.put(PROGRAM_PROPERTY, program.getKey().getNumber());
            serviceProperties.put(VERSION_PROPERTY, program.getKey().getVersion());
            registrations.add(context.registerService(RpcDispatchable.class, program.getValue(), serviceProperties));
        }
        LOG.info("{}; attributes by {}", started.describe(), UnixStat.route());
    }

    private void refuse(String reason) {
        LOG.error("configuration {} refused, {}: {}", PID,
                servers == null ? "nothing is served" : "the previous exports keep serving", reason);
    }

    /** Stops serving. */
    @Deactivate
    public synchronized void deactivate() {
        stopServing();
    }

    private void stopServing() {
        for (ServiceRegistration<RpcDispatchable> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it as the bundle stopped
            }
        }
        registrations.clear();
        if (servers != null) {
            try {
                servers.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("stopping nfs4j's servers of {}: {}", servers.settings().root(), e.toString());
            }
            servers = null;
        }
    }

    /**
     * Reads and checks the configuration's properties.
     *
     * @throws IllegalArgumentException naming the property and the fault
     */
    static Nfs4jServers.Settings settingsOf(Map<String, Object> properties) {
        Path root = absolutePath(properties, Nfs4jExportConfig.ROOT);
        Path state = absolutePath(properties, Nfs4jExportConfig.STATE_DIRECTORY);
        List<String> exports = strings(properties, Nfs4jExportConfig.EXPORTS, null);
        Set<Nfs4jServers.Version> versions = EnumSet.noneOf(Nfs4jServers.Version.class);
        for (String version : strings(properties, Nfs4jExportConfig.VERSIONS, List.of("4"))) {
            try {
                versions.add(Nfs4jServers.Version.of(version));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(Nfs4jExportConfig.VERSIONS + ": " + e.getMessage());
            }
        }
        if (versions.isEmpty()) {
            throw new IllegalArgumentException(Nfs4jExportConfig.VERSIONS + ": no version given ('4', '3')");
        }
        int lease = integer(properties, Nfs4jExportConfig.LEASE_SECONDS, 90);
        if (lease < Nfs4jExportConfig.LEASE_MIN || lease > Nfs4jExportConfig.LEASE_MAX) {
            throw new IllegalArgumentException(Nfs4jExportConfig.LEASE_SECONDS + " = " + lease + ": outside "
                    + Nfs4jExportConfig.LEASE_MIN + ".." + Nfs4jExportConfig.LEASE_MAX);
        }
        Nfs4jServers.parseExports(root, exports);
        return new Nfs4jServers.Settings(root, exports, state, versions, Duration.ofSeconds(lease));
    }

    private static Path absolutePath(Map<String, Object> properties, String name) {
        Object value = properties.get(name);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException(name + ": required (an absolute directory)");
        }
        Path path;
        try {
            path = Path.of(value.toString().trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + " = " + value + ": not a path (" + e.getMessage() + ")");
        }
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException(name + " = " + value + ": not an absolute path");
        }
        return path;
    }

    /** A multi-valued property: an array, a collection, or one value (a comma list is one value). */
    private static List<String> strings(Map<String, Object> properties, String name, List<String> otherwise) {
        Object value = properties.get(name);
        if (value == null) {
            if (otherwise == null) {
                throw new IllegalArgumentException(name + ": required");
            }
            return otherwise;
        }
        List<String> values = new ArrayList<>();
        if (value instanceof Object[] array) {
            for (Object element : array) {
                values.add(String.valueOf(element));
            }
        } else if (value instanceof Collection<?> collection) {
            for (Object element : collection) {
                values.add(String.valueOf(element));
            }
        } else {
            values.add(value.toString());
        }
        values.removeIf(String::isBlank);
        return values;
    }

    private static int integer(Map<String, Object> properties, String name, int otherwise) {
        Object value = properties.get(name);
        if (value == null) {
            return otherwise;
        }
        if (value instanceof Number number) {
            return number.intValue();
        }
        try {
            return Integer.parseInt(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " = " + value + ": not a whole number");
        }
    }
}
