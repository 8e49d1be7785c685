package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.CommandException;
import org.rpcrdma4j.server.HostServerStatistics;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;

/**
 * {@code rpcrdma:transports} - every transport the host server serves over, what became of the
 * calls it dispatched, and each RPC-over-RDMA transport's provider, strategy, connections and key
 * counters.
 */
@Service
@Command(scope = "rpcrdma", name = "transports", description = "Lists the transports and the RPC-over-RDMA transports' counters")
public class TransportsCommand implements Action {
    @Option(name = "-v", aliases = "--verbose",
            description = "also print every non-zero counter of each RPC-over-RDMA transport, its completion loops' included")
    private boolean verbose;

    @Reference(optional = true)
    private List<HostedTransport> transports;

    @Reference(optional = true)
    private List<RdmaTransportControl> controls;

    @Reference(optional = true)
    private RdmaTransportStatus status;

    @Reference(optional = true)
    private HostServerStatistics host;

    @Override
    public Object execute() throws CommandException {
        List<HostedTransport> hosted = transports == null ? List.of() : transports;
        List<RdmaTransportControl> rdma = controls == null ? List.of() : controls;
        if (hosted.isEmpty() && rdma.isEmpty()) {
            throw new CommandException(TransportListing.NO_TRANSPORT);
        }
        TransportListing.hostedTransports(hosted).print(System.out);
        System.out.println(TransportListing.hostCalls(host));
        System.out.println();
        if (rdma.isEmpty()) {
            System.out.println(TransportListing.noRdmaTransport(status));
        } else {
            TransportListing.rdmaTransports(rdma).print(System.out);
            String refused = TransportListing.refusedWhileRunning(status);
            if (refused != null) {
                System.out.println(refused);
            }
            if (verbose) {
                for (RdmaTransportControl c : rdma) {
                    System.out.println();
                    System.out.println(c.name() + ": every counter that is not zero, since the transport started");
                    ConnectionListing.nonZeroCounters(c.statistics()).print(System.out);
                }
            }
        }
        return null;
    }
}
