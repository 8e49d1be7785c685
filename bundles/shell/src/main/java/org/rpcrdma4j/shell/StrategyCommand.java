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
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.CommandException;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;

/**
 * {@code rpcrdma:strategy [name]} - lists the registration strategies (the active one marked),
 * or makes one active: persistently, through Config Admin ({@code activeStrategy} of PID
 * {@code org.rpcrdma4j.transport}), then waits until the transport reports it active. A refusal
 * is a {@link CommandException}: the console prints it and {@code bin/client} exits non-zero.
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

    @Reference
    private Session session;

    @Override
    public Object execute() throws CommandException {
        try (Services services = new Services(context);
             OutputWatch watch = OutputWatch.start(session.getConsole(), BenchCommand.OUTPUT_WATCH_PERIOD)) {
            List<RdmaTransportControl> controls = services.get(RdmaTransportControl.class, null);
            if (controls.isEmpty()) {
                List<RdmaTransportStatus> status = services.get(RdmaTransportStatus.class, null);
                throw new CommandException(TransportListing.noRdmaTransport(status.isEmpty() ? null : status.get(0)));
            }
            if (name == null) {
                StrategySwitch.strategies(controls).print(System.out);
                return null;
            }
            if (waitSeconds < 1) {
                throw new CommandException("-w (wait) must be at least 1 second: " + waitSeconds);
            }
            int polls = (int) Math.max(1, waitSeconds * 1000L / POLL_MILLIS);
            System.out.println(StrategySwitch.switchTo(name, () -> services.get(RdmaTransportControl.class, null),
                    strategy -> writeConfiguration(services, strategy), polls, () -> Thread.sleep(POLL_MILLIS)));
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            throw new CommandException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException("interrupted; the configuration may already name the new strategy", e);
        }
        return null;
    }

    /** Sets the property in the transport's configuration, keeping every other property. */
    private static void writeConfiguration(Services services, String strategy) throws IOException {
        List<ConfigurationAdmin> admins = services.get(ConfigurationAdmin.class, null);
        StrategySwitch.writeStrategy(admins.isEmpty() ? null : admins.get(0), strategy);
    }
}
