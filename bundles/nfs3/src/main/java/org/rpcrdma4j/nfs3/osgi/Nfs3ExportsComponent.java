package org.rpcrdma4j.nfs3.osgi;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;
import org.rpcrdma4j.nfs3.Mount3;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.localfs.UnixStat;

/**
 * Nfs3ExportsComponent - the NFSv3 (100003 v3) and MOUNT v3 (100005 v3) programs as
 * {@code RpcDispatchable} services for the host server's whiteboard (properties
 * {@code rpc.program}, {@code rpc.version}), active only when PID {@value #PID} is configured:
 * nothing is exported by default.
 *
 * <p>A configuration change is applied live: the new exports are opened as a whole and then
 * replace the old ones behind the same two services ({@link LiveExports}). A bad configuration
 * is refused with one ERROR line naming the property and the fault, and the previous exports
 * keep serving; a bad first configuration registers nothing until a good one arrives.
 */
@Component(configurationPid = Nfs3ExportsComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = {})
@Designate(ocd = ExportsConfig.class)
public final class Nfs3ExportsComponent {

    /** Configuration PID: {@code etc/org.rpcrdma4j.nfs3.cfg} in Karaf. */
    public static final String PID = "org.rpcrdma4j.nfs3";

    private final System.Logger log;
    private final BundleContext context;
    private final LiveExports exports = new LiveExports();
    private final List<ServiceRegistration<RpcDispatchable>> registrations = new ArrayList<>();

    /** Serves the configuration, or says in one ERROR line why it cannot. */
    @Activate
    public Nfs3ExportsComponent(BundleContext context, ExportsConfig config) {
        this(context, config, System.getLogger(Nfs3ExportsComponent.class.getName()));
    }

    /** As {@link #Nfs3ExportsComponent(BundleContext, ExportsConfig)}, logging to {@code log} (tests). */
    Nfs3ExportsComponent(BundleContext context, ExportsConfig config, System.Logger log) {
        this.context = context;
        this.log = log;
        modified(config);
    }

    /** Applies a new configuration, or refuses it and keeps serving the previous one. */
    @Modified
    public synchronized void modified(ExportsConfig config) {
        boolean wasServing = exports.serving();
        String refusal = exports.apply(config);
        if (refusal != null) {
            log.log(Level.ERROR, "configuration " + PID + " refused, "
                    + (wasServing ? "the previous exports keep serving" : "nothing is exported") + ": " + refusal);
            return;
        }
        log.log(Level.INFO, "NFSv3 and MOUNT v3 " + (wasServing ? "now serve " : "serve ")
                + Arrays.toString(config.exports()) + " (file handle key in " + config.stateDirectory()
                + "; attributes by " + UnixStat.route() + ")");
        if (registrations.isEmpty()) {
            register(exports.nfsProgram(), Nfs3.PROGRAM, Nfs3.VERSION);
            register(exports.mountProgram(), Mount3.PROGRAM, Mount3.VERSION);
        }
    }

    /** Stops serving: both services go away, and the files they kept open are closed. */
    @Deactivate
    public synchronized void deactivate() {
        for (ServiceRegistration<RpcDispatchable> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it as the bundle stopped
            }
        }
        registrations.clear();
        exports.close(); // the files its READs and WRITEs kept open
    }

    private void register(RpcDispatchable program, int number, int version) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("rpc.program", number);
        properties.put("rpc.version", version);
        registrations.add(context.registerService(RpcDispatchable.class, program, properties));
    }
}
