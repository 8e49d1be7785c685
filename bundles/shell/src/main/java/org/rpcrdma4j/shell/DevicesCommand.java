package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * {@code rpcrdma:devices} - the RDMA devices every registered verbs provider sees: port state,
 * link layer, IP addresses, and the capabilities that matter to the transport (fast registration,
 * remote invalidation, READ depth as initiator/responder, SGEs).
 */
@Service
@Command(scope = "rpcrdma", name = "devices", description = "Lists the RDMA devices the verbs providers see, with ports, addresses and capabilities")
public class DevicesCommand implements Action {
    @Reference(optional = true)
    private List<VerbsProvider> providers;

    @Override
    public Object execute() {
        DeviceListing.devices(providers == null ? List.of() : providers).print(System.out);
        return null;
    }
}
