package org.rpcrdma4j.shell;

import java.io.IOException;
import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * {@code rpcrdma:strategy [name]} - lists the registration strategies (the active one marked),
 * or makes one active: persistently, through Config Admin ({@code activeStrategy} of PID
 * {@code org.rpcrdma4j.transport}), then waits until the transport reports it active.
 */
@Service
@Command(scope = "rpcrdma", name = "strategy", description = "Lists the READ registration strategies, or switches the active one persistently")
public class StrategyCommand implements Action {
    private static final long POLL_MILLIS = 100;

    @Argument(index = 0, name = "name", required = false, description = "the strategy to make active (lkey, frmr, ...)")
    @Completion(StrategyCompleter.class)
    private String name;

    @Option(name = "-w", aliases = "--wait", description = "seconds to wait for the transport to apply the switch")
    private int waitSeconds = 5;

    @Reference
    private BundleContext context;

    @Override
    public Object execute() {
        try (Services services = new Services(context)) {
            List<RdmaTransportControl> controls = services.get(RdmaTransportControl.class, null);
            if (controls.isEmpty()) {
                System.err.println(TransportListing.NO_RDMA_TRANSPORT);
                return null;
            }
            if (name == null) {
                StrategySwitch.strategies(controls).print(System.out);
                return null;
            }
            if (waitSeconds < 1) {
                System.err.println("-w (wait) must be at least 1 second: " + waitSeconds);
                return null;
            }
            int polls = (int) Math.max(1, waitSeconds * 1000L / POLL_MILLIS);
            System.out.println(StrategySwitch.switchTo(name, () -> services.get(RdmaTransportControl.class, null),
                    strategy -> writeConfiguration(services, strategy), polls, () -> Thread.sleep(POLL_MILLIS)));
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            System.err.println(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("interrupted; the configuration may already name the new strategy");
        }
        return null;
    }

    /** Sets the property in the transport's configuration, keeping every other property. */
    private static void writeConfiguration(Services services, String strategy) throws IOException {
        List<ConfigurationAdmin> admins = services.get(ConfigurationAdmin.class, null);
        StrategySwitch.writeStrategy(admins.isEmpty() ? null : admins.get(0), strategy);
    }
}
