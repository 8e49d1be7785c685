package org.rpcrdma4j.benchmarks.hosted;

import java.util.Map;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.server.tcp.OncRpcTcpTransport;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.oncrpc.RdmaHostedTransport;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * BenchServer - the host server serving {@link BenchProgram} over one transport, as Karaf runs
 * it: RPC-over-RDMA on the threaded in-JVM loopback fabric (the transport's own completion
 * thread, the fabric's thread executing work requests, program code on the host's workers), or
 * oncrpc4j's TCP service on 127.0.0.1. Only the transport under test runs, so an idle one takes
 * no CPU from it. Both with their default settings (the RDMA transport's reply cache included).
 *
 * <p>Ownership: the caller closes the server after the channels it opened.
 */
final class BenchServer implements AutoCloseable {
    static final String RDMA = "rdma";
    static final String TCP = "tcp";

    private final LoopbackFabric fabric;
    private final HostServer host;
    private final RdmaHostedTransport rdma;
    private final OncRpcTcpTransport tcp;
    private final int spinMicros;

    private BenchServer(LoopbackFabric fabric, HostServer host, RdmaHostedTransport rdma, OncRpcTcpTransport tcp,
            int spinMicros) {
        this.spinMicros = spinMicros;
        this.fabric = fabric;
        this.host = host;
        this.rdma = rdma;
        this.tcp = tcp;
    }

    /**
     * start() - a server over {@value #RDMA} or {@value #TCP}.
     *
     * @param spinMicros RDMA: the transport's completionSpinMicros, and the spinMicros of the
     *        clients {@link #connect} opens (0: both sleep as soon as they find nothing)
     */
    static BenchServer start(String transport, int spinMicros) throws Exception {
        return start(transport, spinMicros, Map.of(new OncRpcProgram(BenchProgram.PROGRAM, BenchProgram.VERSION),
                new BenchProgram()), BenchProgram.BINDING);
    }

    /**
     * start() - a server of other programs (nfs4j's) over {@value #RDMA} or {@value #TCP}.
     *
     * @param binding the programs' upper-layer binding on RDMA (which reply items go by RDMA WRITE)
     */
    static BenchServer start(String transport, int spinMicros, Map<OncRpcProgram, RpcDispatchable> programs,
            UpperLayerBinding binding) throws Exception {
        HostServer host = new HostServer(HostServer.DEFAULT_WORKER_THREADS);
        programs.forEach(host::addProgram);
        LoopbackFabric fabric = null;
        try {
            switch (transport) {
                case RDMA -> {
                    fabric = LoopbackFabric.threaded();
                    RdmaHostedTransport rdma = RdmaHostedTransport.builder(fabric.provider())
                            .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                            .config(TransportConfig.builder().completionSpinMicros(spinMicros).build())
                            .build();
                    rdma.addBinding(binding);
                    // the lab's strategy, for calls with read chunks (WRITEs): as Karaf offers it
                    rdma.addStrategy(new LkeyRegistrationStrategy());
                    host.addTransport(rdma);
                    return new BenchServer(fabric, host, rdma, null, spinMicros);
                }
                case TCP -> {
                    OncRpcTcpTransport tcp = new OncRpcTcpTransport("127.0.0.1", 0);
                    host.addTransport(tcp);
                    return new BenchServer(null, host, null, tcp, spinMicros);
                }
                default -> throw new IllegalArgumentException("transport must be " + RDMA + " or " + TCP + ": " + transport);
            }
        } catch (Exception | Error e) {
            host.close();
            if (fabric != null) {
                fabric.close();
            }
            throw e;
        }
    }

    /**
     * connect() - a client channel of this server's transport.
     *
     * @param maxInFlight the most calls one workload sends at once
     * @param maxCall the longest call message
     * @param maxReply the longest whole RPC reply
     */
    RpcChannel connect(int maxInFlight, int maxCall, int maxReply) throws Exception {
        return rdma != null ? RdmaChannel.connect(fabric.provider(), rdma.localAddress(), maxInFlight, spinMicros)
                : TcpChannel.connect(tcp.localAddress(), maxCall, maxReply);
    }

    /**
     * connectThin() - the thinnest client of this server's transport, allocating nothing per
     * call ({@link RawRdmaChannel}, {@link TcpChannel}): what a benchmark then counts is the server's.
     * Inline calls only.
     */
    RpcChannel connectThin(int maxCall, int maxReply) throws Exception {
        return rdma != null ? RawRdmaChannel.connect(fabric.provider(), rdma.localAddress())
                : TcpChannel.connect(tcp.localAddress(), maxCall, maxReply);
    }

    /** @return the RDMA transport's counters, or "" over TCP */
    String statistics() {
        return rdma != null ? String.valueOf(rdma.statistics()) : "";
    }

    @Override
    public void close() {
        try {
            host.close();
        } finally {
            if (fabric != null) {
                fabric.close();
            }
        }
    }
}
