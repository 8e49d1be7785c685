package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.CommandException;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;

/**
 * {@code rpcrdma:connections [-v]} - each connection of each RPC-over-RDMA transport: addresses,
 * state, what was negotiated and its key counters; with {@code -v} every non-zero counter.
 */
@Service
@Command(scope = "rpcrdma", name = "connections", description = "Lists the RPC-over-RDMA connections and their counters")
public class ConnectionsCommand implements Action {
    @Option(name = "-v", aliases = "--verbose",
            description = "also print each connection's back channel, reply latency (p50 to max) and every non-zero counter")
    private boolean verbose;

    @Reference(optional = true)
    private List<RdmaTransportControl> controls;

    @Reference(optional = true)
    private RdmaTransportStatus status;

    @Override
    public Object execute() throws CommandException {
        if (controls == null || controls.isEmpty()) {
            throw new CommandException(TransportListing.noRdmaTransport(status));
        }
        for (RdmaTransportControl control : controls) {
            System.out.println(control.name() + " (" + control.providerName() + ", " + Endpoints.format(control.localAddress()) + ")");
            ConnectionListing.connections(control).print(System.out);
            if (verbose) {
                for (RdmaConnection c : control.connections()) {
                    System.out.println();
                    System.out.println(Endpoints.format(c.remoteAddress()) + " (" + ConnectionListing.state(c) + ")");
                    System.out.println(ConnectionListing.backchannel(c));
                    System.out.println(ConnectionListing.replyLatency(c));
                    ConnectionListing.nonZeroCounters(c).print(System.out);
                }
            }
            System.out.println();
        }
        return null;
    }
}
