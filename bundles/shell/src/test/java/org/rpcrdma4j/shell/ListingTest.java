package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.server.HostServerStatistics;
import org.rpcrdma4j.server.HostedTransport;
import org.rpcrdma4j.server.RpcCallDispatcher;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.ReplyLatency;

class ListingTest {

    @Test
    void hostedTransportsWithTheirAddresses() {
        String text = Fakes.render(TransportListing.hostedTransports(List.of(
                hosted("tcp", new InetSocketAddress("0.0.0.0", 2049)), hosted("rdma", null))));
        assertEquals(List.of("tcp", "0.0.0.0:2049"), Fakes.cells(Fakes.line(text, "tcp")));
        assertEquals(List.of("rdma", "-"), Fakes.cells(Fakes.line(text, "rdma")));
    }

    @Test
    void theHostServersCallsLineSaysWhatBecameOfTheCalls() {
        HostServerStatistics host = new HostServerStatistics() {
            @Override public long dispatchedCalls() { return 1200; }
            @Override public long failedCalls() { return 7; }
            @Override public long programErrorCalls() { return 2; }
            @Override public long malformedMessages() { return 5; }
            @Override public long callsRefusedOverConnectionBound() { return 3; }
            @Override public long workerWakeups() { return 900; }
            @Override public long callsWithKeptCredential() { return 1100; }
        };
        assertEquals("Host server calls: 1200 dispatched, 7 failed (2 program Errors), 5 malformed RPC headers "
                + "refused, 3 refused over the per-connection queue bound; workers woken 900 times; "
                + "1100 with a kept AUTH_SYS credential.",
                TransportListing.hostCalls(host));
        assertEquals("Host server: not running (feature rpcrdma4j-server).", TransportListing.hostCalls(null));
    }

    @Test
    void rdmaTransportRowWithItsKeyCounters() {
        Fakes.Control c = new Fakes.Control();
        c.connections.add(new Fakes.Connection());
        c.connections.add(new Fakes.Connection());
        c.statistics.set(Counter.CALLS_DELIVERED, 2000).set(Counter.SENDS, 2001).set(Counter.READS, 17)
                .set(Counter.ERR_VERS_SENT, 1).set(Counter.ERR_CHUNK_SENT, 2).set(Counter.CONNECTIONS_ACCEPTED, 5)
                .set(Counter.ACCEPT_FAILURES, 3).set(Counter.CONNECTIONS_FAILED, 4);
        String text = Fakes.render(TransportListing.rdmaTransports(List.of(c)));
        assertEquals(List.of("rdma", "loopback", "0.0.0.0:20049", "lkey", "2", "2000", "2001", "17", "3", "5", "3", "4"),
                Fakes.cells(Fakes.line(text, "rdma")));
        assertTrue(Fakes.line(text, "RDMA transport").contains("RDMA_ERRORs sent"));
    }

    @Test
    void aStoppedTransportShowsDashesAndNoStrategy() {
        Fakes.Control c = new Fakes.Control();
        c.statistics = null;
        c.address = null;
        c.active = null;
        List<String> cells = Fakes.cells(Fakes.line(Fakes.render(TransportListing.rdmaTransports(List.of(c))), "rdma"));
        assertEquals(List.of("rdma", "loopback", "-", "(none)", "0", "-", "-", "-", "-", "-", "-", "-"), cells);
    }

    @Test
    void connectionRowsWithWhatWasNegotiated() {
        Fakes.Control c = new Fakes.Control();
        Fakes.Connection open = new Fakes.Connection();
        open.statistics.set(Counter.CALLS_DELIVERED, 10).set(Counter.SENDS, 10).set(Counter.ERR_CHUNK_SENT, 1)
                .set(Counter.CALLS_DROPPED, 2);
        Fakes.Connection closing = new Fakes.Connection();
        closing.remote = new InetSocketAddress("2001:db8::7", 40002);
        closing.open = false;
        closing.remoteInvalidation = true;
        closing.replySizeLimit = 1024;
        closing.credits = 128;
        c.connections.add(open);
        c.connections.add(closing);
        String text = Fakes.render(ConnectionListing.connections(c));
        assertEquals(List.of("192.0.2.7:40001", "192.0.2.1:20049", "open", "32", "4096", "no", "10", "10", "0", "1", "2", "0"),
                Fakes.cells(Fakes.line(text, "192.0.2.7")));
        assertEquals(List.of("[2001:db8::7]:40002", "192.0.2.1:20049", "closing", "128", "1024", "yes", "0", "0", "0", "0", "0", "0"),
                Fakes.cells(Fakes.line(text, "[2001:db8")));
    }

    @Test
    void theBackChannelLineShowsCreditsOutstandingCallsAndTheBackwardCounters() {
        Fakes.Connection c = new Fakes.Connection();
        c.backchannel.credits = 3;
        c.backchannel.outstanding = 1;
        c.backchannel.waiting = 4;
        c.statistics.set(Counter.BACKWARD_CALLS, 12).set(Counter.BACKWARD_REPLIES, 10).set(Counter.BACKWARD_TIMEOUTS, 1)
                .set(Counter.BACKWARD_CALLS_FAILED, 1);
        assertEquals("back channel: credits 3, outstanding 1, waiting 4; calls sent 12, replies received 10, timeouts 1, "
                + "failed by close 1", ConnectionListing.backchannel(c));
        c.statistics.set(Counter.CALLS_DELIVERED, 10);
        assertEquals("12", Fakes.cells(Fakes.line(Fakes.render(ConnectionListing.connections(controlWith(c))), "192.0.2.7"))
                .get(11), "the Callbacks column: backward calls sent");
        c.backchannel.maxCallSize = 0;
        assertEquals("back channel: off", ConnectionListing.backchannel(c));
    }

    @Test
    void theReplyLatencyLineGivesTheCountAndEachPercentileInMicroseconds() {
        Fakes.Connection c = new Fakes.Connection();
        assertEquals("reply latency (receive to reply SEND, µs, bucket upper bounds): count 0", ConnectionListing.replyLatency(c));
        c.replyLatency = new ReplyLatency(1000, 512, 928, 992, 1024, ReplyLatency.OVERFLOW);
        assertEquals("reply latency (receive to reply SEND, µs, bucket upper bounds): count 1000, p50 512, p90 928, p99 992, "
                + "p99.9 1024, max >67108864", ConnectionListing.replyLatency(c));
    }

    private static Fakes.Control controlWith(Fakes.Connection c) {
        Fakes.Control control = new Fakes.Control();
        control.connections.add(c);
        return control;
    }

    @Test
    void noConnectionsIsSaid() {
        assertTrue(Fakes.render(ConnectionListing.connections(new Fakes.Control())).contains("(no connections)"));
    }

    @Test
    void verboseCountersAreTheNonZeroOnesInOrder() {
        Fakes.Connection c = new Fakes.Connection();
        c.statistics.set(Counter.SENDS, 7).set(Counter.RECEIVES, 9).set(Counter.READS, 0);
        String text = Fakes.render(ConnectionListing.nonZeroCounters(c));
        assertEquals(List.of("RECEIVES", "9"), Fakes.cells(Fakes.line(text, "RECEIVES")));
        assertEquals(List.of("SENDS", "7"), Fakes.cells(Fakes.line(text, "SENDS")));
        assertFalse(text.contains("READS"), text);
        assertTrue(text.indexOf("RECEIVES") < text.indexOf("SENDS"), "in the counters' order");
        assertTrue(Fakes.render(ConnectionListing.nonZeroCounters(new Fakes.Connection())).contains("(every counter is 0)"));
    }

    @Test
    void addressesPrintNumericAndWildcardsConnectToLoopback() throws Exception {
        assertEquals("-", Endpoints.format(null));
        assertEquals("10.0.0.1:20049", Endpoints.format(new InetSocketAddress("10.0.0.1", 20049)));
        assertEquals("[::1]:1", Endpoints.format(new InetSocketAddress("::1", 1)));
        assertEquals("[::]:2049", Endpoints.format(new InetSocketAddress("::", 2049)));
        assertEquals(new InetSocketAddress("127.0.0.1", 20049), Endpoints.connectable(new InetSocketAddress("0.0.0.0", 20049)));
        assertEquals(new InetSocketAddress("127.0.0.1", 2049), Endpoints.connectable(new InetSocketAddress("::", 2049)));
        InetSocketAddress specific = new InetSocketAddress("10.0.0.1", 20049);
        assertEquals(specific, Endpoints.connectable(specific));
    }

    @Test
    void ipv6IsShortenedAtItsLongestRunOfZeroGroups() {
        assertEquals("::", Endpoints.compress("0:0:0:0:0:0:0:0"));
        assertEquals("::1", Endpoints.compress("0:0:0:0:0:0:0:1"));
        assertEquals("2001:db8::7", Endpoints.compress("2001:db8:0:0:0:0:0:7"));
        assertEquals("fe80::1%eth0", Endpoints.compress("fe80:0:0:0:0:0:0:1%eth0"));
        assertEquals("2001:db8:0:1::1", Endpoints.compress("2001:db8:0:1:0:0:0:1"), "the longer run");
        assertEquals("2001::1:0:0:1:1", Endpoints.compress("2001:0:0:1:0:0:1:1"), "the first of equal runs");
        assertEquals("2001:db8:0:1:2:3:4:5", Endpoints.compress("2001:db8:0:1:2:3:4:5"), "one zero group stays");
        assertEquals("1::", Endpoints.compress("1:0:0:0:0:0:0:0"));
    }

    private static HostedTransport hosted(String name, InetSocketAddress address) {
        return new HostedTransport() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void start(RpcCallDispatcher dispatcher) throws IOException {
                throw new UnsupportedOperationException();
            }

            @Override
            public void stop() {
            }

            @Override
            public InetSocketAddress localAddress() {
                return address;
            }
        };
    }
}
