package org.rpcrdma4j.shell;

import java.util.List;

import org.apache.karaf.shell.support.table.ShellTable;
import org.rpcrdma4j.server.HostServerStatistics;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.RdmaTransportStatus;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * TransportListing - the tables of {@code rpcrdma:transports}: every transport the host server
 * serves over, and for each RPC-over-RDMA transport its provider, strategy, connections and key
 * counters.
 *
 * <p>Threading: reads live services; each figure is read once, so a row is a snapshot of moments
 * a few microseconds apart, not an atomic one.
 */
final class TransportListing {
    /** The line printed when the host server has no transport at all. */
    static final String NO_TRANSPORT = "No transport is running (is feature rpcrdma4j-server installed and started?)";
    /** The line printed when no RPC-over-RDMA transport is registered. */
    static final String NO_RDMA_TRANSPORT = "No RPC-over-RDMA transport is running (feature rpcrdma4j-transport, "
            + "configuration PID org.rpcrdma4j.transport).";

    private TransportListing() {
    }

    /**
     * @param status the transport component's status, or null when the transport bundle is absent
     * @return {@link #NO_RDMA_TRANSPORT}, and why, as the transport component says
     */
    static String noRdmaTransport(RdmaTransportStatus status) {
        if (status == null) {
            return NO_RDMA_TRANSPORT;
        }
        String state = status.state();
        return NO_RDMA_TRANSPORT.substring(0, NO_RDMA_TRANSPORT.length() - 1) + ": " + state
                + (state.endsWith(".") ? "" : ".");
    }

    /**
     * @param status the transport component's status, or null
     * @return a line saying the last configuration was refused while the transport runs on, or null
     */
    static String refusedWhileRunning(RdmaTransportStatus status) {
        String refusal = status == null ? null : status.refusal();
        return refusal == null ? null : "The last configuration was refused, the transport runs on the previous one: "
                + refusal;
    }

    /**
     * @param host the host server's statistics, or null when its component is not running
     * @return one line: what became of the calls the host dispatched, and what it refused
     */
    static String hostCalls(HostServerStatistics host) {
        if (host == null) {
            return "Host server: not running (feature rpcrdma4j-server).";
        }
        return "Host server calls: " + host.dispatchedCalls() + " dispatched, " + host.failedCalls() + " failed ("
                + host.programErrorCalls() + " program Errors), " + host.malformedMessages()
                + " malformed RPC headers refused, " + host.callsRefusedOverConnectionBound()
                + " refused over the per-connection queue bound; workers woken " + host.workerWakeups() + " times; "
                + host.callsWithKeptCredential() + " with a kept AUTH_SYS credential.";
    }

    /**
     * @param transports the host server's transports
     * @return one row per transport: name and local address ("-" until started)
     */
    static ShellTable hostedTransports(List<HostedTransport> transports) {
        ShellTable table = new ShellTable();
        table.column("Transport");
        table.column("Local address");
        for (HostedTransport t : transports) {
            table.addRow().addContent(t.name(), Endpoints.format(t.localAddress()));
        }
        return table;
    }

    /**
     * @param controls the RPC-over-RDMA transports
     * @return one row per transport; counters are "-" while a transport is stopped
     */
    static ShellTable rdmaTransports(List<RdmaTransportControl> controls) {
        ShellTable table = new ShellTable();
        table.column("RDMA transport");
        table.column("Provider");
        table.column("Local address");
        table.column("Strategy");
        table.column("Connections").alignRight();
        table.column("Calls").alignRight();
        table.column("Sends").alignRight();
        table.column("READs").alignRight();
        table.column("RDMA_ERRORs sent").alignRight();
        table.column("Accepted").alignRight();
        table.column("Rejected").alignRight();
        table.column("Failed").alignRight();
        for (RdmaTransportControl c : controls) {
            TransportStatistics s = c.statistics();
            String strategy = c.activeStrategy();
            table.addRow().addContent(c.name(), c.providerName(), Endpoints.format(c.localAddress()),
                    strategy == null ? "(none)" : strategy, c.connections().size(),
                    value(s, Counter.CALLS_DELIVERED), value(s, Counter.SENDS), value(s, Counter.READS),
                    rdmaErrorsSent(s), value(s, Counter.CONNECTIONS_ACCEPTED), value(s, Counter.ACCEPT_FAILURES),
                    value(s, Counter.CONNECTIONS_FAILED));
        }
        return table;
    }

    /**
     * @param s statistics, or null
     * @return RDMA_ERROR replies sent (ERR_VERS and ERR_CHUNK), or "-" without statistics
     */
    static String rdmaErrorsSent(TransportStatistics s) {
        return s == null ? "-" : Long.toString(s.get(Counter.ERR_VERS_SENT) + s.get(Counter.ERR_CHUNK_SENT));
    }

    /**
     * @param s statistics, or null
     * @param counter which
     * @return the counter's value, or "-" without statistics
     */
    static String value(TransportStatistics s, Counter counter) {
        return s == null ? "-" : Long.toString(s.get(counter));
    }
}
