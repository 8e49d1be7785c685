package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.CommandLine;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.rpcrdma4j.transport.RdmaTransportControl;

/** Completes {@code rpcrdma:strategy <TAB>} with the strategies the running transports registered. */
@Service
public class StrategyCompleter implements Completer {
    @Reference(optional = true)
    private List<RdmaTransportControl> controls;

    @Override
    public int complete(Session session, CommandLine commandLine, List<String> candidates) {
        List<RdmaTransportControl> now = controls == null ? List.of() : controls;
        return new StringsCompleter(StrategySwitch.registered(now)).complete(session, commandLine, candidates);
    }
}
