package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.RdmaTransportControl;

/**
 * {@code rpcrdma:transports} - every transport the host server serves over, and each
 * RPC-over-RDMA transport's provider, strategy, connections and key counters.
 */
@Service
@Command(scope = "rpcrdma", name = "transports", description = "Lists the transports and the RPC-over-RDMA transports' counters")
public class TransportsCommand implements Action {
    @Reference(optional = true)
    private List<HostedTransport> transports;

    @Reference(optional = true)
    private List<RdmaTransportControl> controls;

    @Override
    public Object execute() {
        List<HostedTransport> hosted = transports == null ? List.of() : transports;
        List<RdmaTransportControl> rdma = controls == null ? List.of() : controls;
        if (hosted.isEmpty() && rdma.isEmpty()) {
            System.err.println(TransportListing.NO_TRANSPORT);
            return null;
        }
        TransportListing.hostedTransports(hosted).print(System.out);
        System.out.println();
        if (rdma.isEmpty()) {
            System.out.println(TransportListing.NO_RDMA_TRANSPORT);
        } else {
            TransportListing.rdmaTransports(rdma).print(System.out);
        }
        return null;
    }
}
