package org.rpcrdma4j.benchmarks.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.rpcrdma4j.registration.frmr.FrmrRegistrationStrategy;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * TransportBench - a transport and a {@link BenchClient} on one deterministic loopback fabric,
 * driven on the benchmark thread: the client sends, the fabric executes, the transport's
 * completion loop decodes, reads and hands each call to the handler.
 */
final class TransportBench implements AutoCloseable {
    final LoopbackFabric fabric;
    final RdmaTransport transport;
    final BenchClient client;

    TransportBench(TransportConfig config, RpcCallHandler handler, String strategy, int inlineBytes, int chunkBytes)
            throws Exception {
        fabric = LoopbackFabric.deterministic();
        transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), config, handler);
        transport.addStrategy(strategy(strategy));
        client = new BenchClient(fabric.provider(), transport.localAddress(), chunkBytes);
        for (int i = 0; i < 1000 && !client.isEstablished(); i++) {
            fabric.runUntilIdle();
            transport.doWork();
            client.poll();
        }
        if (!client.isEstablished()) {
            throw new IllegalStateException("benchmark client did not connect");
        }
        client.encodeCall(inlineBytes, chunkBytes);
    }

    static RegistrationStrategy strategy(String name) {
        return FrmrRegistrationStrategy.NAME.equals(name) ? new FrmrRegistrationStrategy() : new LkeyRegistrationStrategy();
    }

    /** settle() - run fabric, transport and client until all are idle. */
    void settle() throws Exception {
        int work;
        do {
            work = fabric.runUntilIdle();
            work += transport.doWork();
            work += client.poll();
        } while (work > 0);
    }

    @Override
    public void close() throws Exception {
        try {
            client.close();
            transport.close();
            for (int i = 0; i < 10_000 && !transport.isClosed(); i++) {
                fabric.runUntilIdle();
                transport.doWork();
            }
        } finally {
            fabric.close();
        }
    }
}
