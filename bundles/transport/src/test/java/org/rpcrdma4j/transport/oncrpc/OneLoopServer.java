package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.server.HostServer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * OneLoopServer - the host server with {@link BulkProgram} over an RDMA transport of one
 * completion loop (as Karaf runs it: the loop's own threads, 2 workers) on a threaded loopback
 * fabric, and one client: the fixture of the tests that watch what a loop's threads do.
 *
 * <p>Ownership: {@link #close()} releases the client, the server (its gate opened first, so no
 * gated call holds the stop) and the fabric, and checks the loop's threads ended.
 */
final class OneLoopServer implements AutoCloseable {
    final LoopbackFabric fabric = LoopbackFabric.threaded();
    final HostServer host = new HostServer(2);
    final BulkProgram program = new BulkProgram();
    final RdmaHostedTransport rdma;
    final RpcRdmaClient client;

    /**
     * @param config the transport's settings but the loop count (one)
     * @param client the client's
     */
    OneLoopServer(TransportConfig.Builder config, ClientConfig client) throws Exception {
        try {
            host.addProgram(new OncRpcProgram(BulkProgram.PROGRAM, BulkProgram.VERSION), program);
            rdma = RdmaHostedTransport.builder(fabric.provider())
                    .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .config(config.completionLoops(1).build())
                    .build();
            rdma.addBinding(BulkProgram.BINDING);
            host.addTransport(rdma);
            this.client = RpcRdmaClient.connect(fabric.provider(), rdma.localAddress(), client);
        } catch (Exception | Error e) {
            host.close();
            fabric.close();
            throw e;
        }
    }

    /**
     * call() - one call of {@link BulkProgram}, not waiting for its reply.
     *
     * @param xid the call's transaction id
     * @param procedure which of BulkProgram's procedures
     * @param arguments the XDR-encoded arguments
     * @return the reply, once it comes
     */
    CompletableFuture<RpcReply> call(int xid, int procedure, byte[] arguments) {
        return client.call(CallRequest.builder(RpcWire.call(xid, BulkProgram.PROGRAM, BulkProgram.VERSION, procedure,
                arguments)).build());
    }

    /**
     * echo() - one 64-byte ECHO call, waiting for its reply, and checks the echo.
     *
     * @param xid the call's transaction id; its low byte fills the text
     */
    void echo(int xid) throws Exception {
        byte[] text = new byte[64];
        Arrays.fill(text, (byte) xid);
        RpcReply reply = client.call(CallRequest.builder(RpcWire.call(xid, BulkProgram.PROGRAM, BulkProgram.VERSION,
                BulkProgram.ECHO, RpcWire.opaqueArgument(text))).build(), Duration.ofSeconds(30));
        byte[] whole = RpcWire.whole(reply, false);
        assertEquals(0, RpcWire.acceptStatus(whole), "SUCCESS");
        int at = RpcWire.resultsOffset(whole);
        assertArrayEquals(text, Arrays.copyOfRange(whole, at + 4, at + 4 + text.length), "call " + xid + " echoed");
    }

    /** @return the transport's count of {@code counter} */
    long count(Counter counter) {
        return rdma.statistics().get(counter);
    }

    /** @return the transport's counters and what the loop's crew threads do, for a failure message */
    String describe() {
        return "counters " + rdma.statistics() + "; crew " + CrewThreads.describe(port(), 0);
    }

    /**
     * assertCrewAsleep() - the loop's crew is all parked within {@code timeout}: one thread on the
     * completion channel, the other standing by (an idle loop spins no more).
     */
    void assertCrewAsleep(Duration timeout) throws InterruptedException {
        assertTrue(CrewThreads.awaitAsleep(port(), 0, timeout), "the idle loop never slept: " + describe());
    }

    /** @return the port the transport listens on (its threads are named after it) */
    int port() {
        return rdma.localAddress().getPort();
    }

    @Override
    public void close() {
        try {
            client.close();
            program.gate.countDown();
            host.close();
            assertTrue(rdma.isStopped(), "the completion loop's threads ended");
        } finally {
            fabric.close();
        }
    }
}
