package org.rpcrdma4j.transport.conformance;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.testing.rawpeer.PeerShape;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.spi.RegistrationStrategy;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.loopback.FabricMode;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * TransportHarness - the embedded-channel idea for the transport: a loopback fabric, a transport
 * listening on it, raw clients, and a {@link #settle()} that drives everything step by step in
 * deterministic mode, with no thread.
 *
 * <p>Ownership: the test owns it and MUST {@link #close()} it (clients, transport, fabric).
 */
public final class TransportHarness implements AutoCloseable {
    private static final int MAX_ROUNDS = 100_000;

    private final LoopbackFabric fabric;
    private final RdmaTransport transport;
    private final List<RawPeer> clients = new ArrayList<>();

    /** Creates a transport on {@code fabric} with {@code strategies} (the first one active). */
    public TransportHarness(LoopbackFabric fabric, TransportConfig config, RpcCallHandler handler,
                            RegistrationStrategy... strategies) throws VerbsException {
        this.fabric = fabric;
        this.transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                config, handler);
        for (RegistrationStrategy s : strategies) {
            transport.addStrategy(s);
        }
    }

    public LoopbackFabric fabric() {
        return fabric;
    }

    public RdmaTransport transport() {
        return transport;
    }

    /**
     * The clients' memory: 64 KiB messages, a source region (8 MiB) the server READs chunks from
     * and may WRITE reply chunks into, a sink (1 MiB) for write chunks.
     */
    public static final PeerShape CLIENT_SHAPE = PeerShape.builder().slotBytes(64 * 1024).sendSlots(16).receiveSlots(32)
            .source(8 << 20, Access.REMOTE_READ | Access.REMOTE_WRITE | Access.LOCAL_WRITE).sinkBytes(1 << 20)
            .responderResources(16).build();

    /** connect() - a client with RFC 8797 private data (receive size 4 KiB), established. */
    public RawPeer connect() throws Exception {
        return connect(new ConnectionPrivateData(4096, 4096, false));
    }

    /** connect() - a client with the given private data (null: none), established. */
    public RawPeer connect(ConnectionPrivateData privateData) throws Exception {
        RawPeer c = RawPeer.open(fabric.provider(), transport.localAddress(), CLIENT_SHAPE, privateData);
        clients.add(c);
        if (fabric.mode() == FabricMode.DETERMINISTIC) {
            settle();
        } else {
            for (int i = 0; i < MAX_ROUNDS * 100 && !c.isEstablished(); i++) {
                transport.doWork();
                c.poll();
            }
        }
        if (!c.isEstablished()) {
            throw new IllegalStateException("client did not connect");
        }
        return c;
    }

    /**
     * forget() - close {@code client} (its connection, queue pair, regions) and stop driving it.
     */
    public void forget(RawPeer client) throws VerbsException {
        clients.remove(client);
        client.close();
    }

    /**
     * settle() - deterministic mode: run the fabric, the transport and the clients until none has
     * anything left to do.
     *
     * @return rounds taken
     */
    public int settle() throws VerbsException {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            int work = fabric.runUntilIdle();
            work += transport.doWork();
            for (RawPeer c : clients) {
                work += c.poll();
            }
            if (work == 0) {
                return round;
            }
        }
        throw new IllegalStateException("the harness did not settle");
    }

    /** step() - deterministic mode: one transport pass, then one fabric step, then the clients. */
    public void step() throws VerbsException {
        transport.doWork();
        fabric.step();
        for (RawPeer c : clients) {
            c.poll();
        }
    }

    /** @return the transport's resource usage (completion thread: the test's in deterministic mode) */
    public ResourceUsage usage() {
        return transport.usage();
    }

    /**
     * closeTransport() - close the clients and the transport and drive until it reports every
     * resource released (its protection domain closed: no region or queue pair left).
     *
     * @return true when the transport closed
     */
    public boolean closeTransport() throws VerbsException {
        for (RawPeer c : clients) {
            c.disconnect();
        }
        transport.close();
        for (int round = 0; round < MAX_ROUNDS && !transport.isClosed(); round++) {
            if (fabric.mode() == FabricMode.DETERMINISTIC) {
                fabric.runUntilIdle();
            } else {
                Thread.onSpinWait();
            }
            transport.doWork();
            for (RawPeer c : clients) {
                c.poll();
            }
        }
        return transport.isClosed();
    }

    @Override
    public void close() throws Exception {
        try {
            if (!transport.isClosed()) {
                closeTransport();
            }
            for (RawPeer c : clients) {
                c.close();
            }
        } finally {
            fabric.close();
        }
    }
}
