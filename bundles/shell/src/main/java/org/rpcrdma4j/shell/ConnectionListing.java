package org.rpcrdma4j.shell;

import org.apache.karaf.shell.support.table.ShellTable;
import org.rpcrdma4j.transport.Backchannel;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaConnection;
import org.rpcrdma4j.transport.RdmaTransportControl;
import org.rpcrdma4j.transport.ReplyLatency;
import org.rpcrdma4j.transport.TransportStatistics;

/**
 * ConnectionListing - the tables of {@code rpcrdma:connections}: each connection of a transport
 * with what was negotiated and its key counters, and (verbose) the back channel, the reply latency
 * and every non-zero counter of one connection.
 *
 * <p>Threading: reads live connections; a connection may close while it is listed, its row then
 * shows "closing".
 */
final class ConnectionListing {
    private ConnectionListing() {
    }

    /**
     * @param control a transport
     * @return one row per connection of the transport (a snapshot of its list)
     */
    static ShellTable connections(RdmaTransportControl control) {
        ShellTable table = new ShellTable();
        table.column("Remote address");
        table.column("Local address");
        table.column("State");
        table.column("Credits").alignRight();
        table.column("Reply limit").alignRight();
        table.column("Remote inv.");
        table.column("Calls").alignRight();
        table.column("Sends").alignRight();
        table.column("READs").alignRight();
        table.column("RDMA_ERRORs sent").alignRight();
        table.column("Dropped").alignRight();
        table.column("Callbacks").alignRight();
        table.emptyTableText("(no connections)");
        for (RdmaConnection c : control.connections()) {
            TransportStatistics s = c.statistics();
            table.addRow().addContent(Endpoints.format(c.remoteAddress()), Endpoints.format(c.localAddress()), state(c),
                    c.grantedCredits(), c.replySizeLimit(), c.remoteInvalidationAllowed() ? "yes" : "no",
                    TransportListing.value(s, Counter.CALLS_DELIVERED), TransportListing.value(s, Counter.SENDS),
                    TransportListing.value(s, Counter.READS), TransportListing.rdmaErrorsSent(s),
                    TransportListing.value(s, Counter.CALLS_DROPPED), TransportListing.value(s, Counter.BACKWARD_CALLS));
        }
        return table;
    }

    /**
     * @param connection a connection
     * @return every counter of the connection that is not zero, in the counters' order
     */
    static ShellTable nonZeroCounters(RdmaConnection connection) {
        return nonZeroCounters(connection.statistics());
    }

    /**
     * @param s a connection's or a transport's statistics, or null
     * @return every counter that is not zero, in the counters' order
     */
    static ShellTable nonZeroCounters(TransportStatistics s) {
        ShellTable table = new ShellTable();
        table.column("Counter");
        table.column("Value").alignRight();
        table.emptyTableText("(every counter is 0)");
        if (s != null) {
            for (Counter counter : Counter.values()) {
                long v = s.get(counter);
                if (v != 0) {
                    table.addRow().addContent(counter.name(), v);
                }
            }
        }
        return table;
    }

    /**
     * @param c a connection
     * @return its back channel (RFC 8167) in one line: credits in force, calls outstanding and
     *         waiting, and the backward counters (calls sent, replies received, timeouts, failed)
     */
    static String backchannel(RdmaConnection c) {
        Backchannel b = c.backchannel();
        TransportStatistics s = c.statistics();
        if (b == null || b.maxCallSize() == 0) {
            return "back channel: off";
        }
        return "back channel: credits " + b.credits() + ", outstanding " + b.outstanding() + ", waiting " + b.waiting()
                + "; calls sent " + TransportListing.value(s, Counter.BACKWARD_CALLS) + ", replies received "
                + TransportListing.value(s, Counter.BACKWARD_REPLIES) + ", timeouts "
                + TransportListing.value(s, Counter.BACKWARD_TIMEOUTS) + ", failed by close "
                + TransportListing.value(s, Counter.BACKWARD_CALLS_FAILED);
    }

    /**
     * @param c a connection
     * @return its reply latency (receive completion handled to reply SEND posted) in one line:
     *         count, then p50, p90, p99, p99.9 and max in µs, each the upper bound of its
     *         histogram bucket ({@link ReplyLatency}); only the count when it has no replies yet
     */
    static String replyLatency(RdmaConnection c) {
        ReplyLatency l = c.replyLatency();
        String head = "reply latency (receive to reply SEND, µs, bucket upper bounds): count " + l.count();
        if (l.count() == 0) {
            return head;
        }
        return head + ", p50 " + ReplyLatency.format(l.p50Micros()) + ", p90 " + ReplyLatency.format(l.p90Micros())
                + ", p99 " + ReplyLatency.format(l.p99Micros()) + ", p99.9 " + ReplyLatency.format(l.p999Micros())
                + ", max " + ReplyLatency.format(l.maxMicros());
    }

    /** @return "open" or "closing" */
    static String state(RdmaConnection c) {
        return c.isOpen() ? "open" : "closing";
    }
}
