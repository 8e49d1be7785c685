package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.verbs.loopback.LoopbackProvider;

/**
 * The benchmark's channels against a real host server in this JVM: RPC-over-RDMA over the
 * threaded loopback fabric and oncrpc4j TCP on 127.0.0.1, serving a program that answers NULL.
 * Timeouts only bound a hang; nothing asserts on time.
 */
class BenchChannelsTest {
    private static final int PROGRAM = 0x2000_0779;
    private static final Duration LONG = Duration.ofSeconds(30);

    private LoopbackProvider provider;
    private HostServer host;
    private RdmaHostedTransport rdma;
    private OncRpcTcpTransport tcp;

    @BeforeEach
    void startHost() throws Exception {
        provider = new LoopbackProvider();
        host = new HostServer(4);
        RpcDispatchable nullOnly = call -> {
            if (call.getProcedure() == NullCall.NULL_PROCEDURE) {
                call.reply(XdrVoid.XDR_VOID);
            } else {
                call.failProcedureUnavailable();
            }
        };
        host.addProgram(new OncRpcProgram(PROGRAM, 1), nullOnly);
        rdma = RdmaHostedTransport.builder(provider).address(new InetSocketAddress("127.0.0.1", 0)).build();
        rdma.addStrategy(new LkeyRegistrationStrategy());
        host.addTransport(rdma);
        tcp = new OncRpcTcpTransport("127.0.0.1", 0);
        host.addTransport(tcp);
    }

    @AfterEach
    void stopHost() {
        host.close();
        provider.close();
    }

    @Test
    void everyNullCallOverRdmaIsAnsweredAndCountedByTheServer() throws Exception {
        BenchPlan plan = new BenchPlan(500, 4, PROGRAM, 1, 0, LONG, LONG);
        long before = rdma.statistics().get(Counter.CALLS_DELIVERED);
        BenchResult r;
        try (RdmaBenchChannel channel = RdmaBenchChannel.connect(provider, Endpoints.connectable(rdma.localAddress()), plan)) {
            r = new BenchRunner(plan).run("rdma", channel);
        }
        assertEquals(500, r.succeeded(), "first failure: " + r.firstFailure());
        assertEquals(0, r.failed());
        assertNull(r.firstFailure());
        assertEquals(500, rdma.statistics().get(Counter.CALLS_DELIVERED) - before);
        assertEquals(0, rdma.statistics().get(Counter.READS), "NULL calls without arguments travel inline");
    }

    @Test
    void everyNullCallOverTcpIsAnswered() throws Exception {
        BenchPlan plan = new BenchPlan(500, 4, PROGRAM, 1, 0, LONG, LONG);
        BenchResult r;
        try (TcpBenchChannel channel = TcpBenchChannel.connect(Endpoints.connectable(tcp.localAddress()), plan)) {
            r = new BenchRunner(plan).run("tcp", channel);
        }
        assertEquals(500, r.succeeded(), "first failure: " + r.firstFailure());
        assertEquals(0, r.failed());
    }

    @Test
    void anUnservedProgramFailsEveryCallWithItsStatus() throws Exception {
        BenchPlan plan = new BenchPlan(20, 2, PROGRAM + 1, 1, 0, LONG, LONG);
        BenchResult overRdma;
        try (RdmaBenchChannel channel = RdmaBenchChannel.connect(provider, Endpoints.connectable(rdma.localAddress()), plan)) {
            overRdma = new BenchRunner(plan).run("rdma", channel);
        }
        assertEquals(0, overRdma.succeeded());
        assertEquals(20, overRdma.failed());
        assertEquals("IOException: call accepted but not executed: PROG_UNAVAIL", overRdma.firstFailure());
        BenchResult overTcp;
        try (TcpBenchChannel channel = TcpBenchChannel.connect(Endpoints.connectable(tcp.localAddress()), plan)) {
            overTcp = new BenchRunner(plan).run("tcp", channel);
        }
        assertEquals(0, overTcp.succeeded());
        assertEquals(20, overTcp.failed());
        assertTrue(overTcp.firstFailure().contains("PROG_UNAVAIL"), overTcp.firstFailure());
    }

    @Test
    void argumentsTravelOverTcpToo() throws Exception {
        BenchPlan plan = new BenchPlan(50, 2, PROGRAM, 1, 65536, LONG, LONG);
        BenchResult r;
        try (TcpBenchChannel channel = TcpBenchChannel.connect(Endpoints.connectable(tcp.localAddress()), plan)) {
            r = new BenchRunner(plan).run("tcp", channel);
        }
        assertEquals(50, r.succeeded(), "first failure: " + r.firstFailure());
    }
}
