package org.rpcrdma4j.fuzz;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.testing.rawpeer.PeerShape;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * FuzzBed - a transport on a deterministic loopback fabric with the lkey strategy, any number of
 * {@link RawPeer}s (which may vanish at any time), and a handler that holds every call until the
 * test releases it. Everything runs on the test's thread; {@link #settle()} drives the fabric, the
 * transport and the peers until none has work.
 *
 * <p>Ownership: the test owns it and MUST {@link #close()} it.
 */
final class FuzzBed implements AutoCloseable {
    private static final int MAX_ROUNDS = 20_000;

    /**
     * The peers' memory, little since a test creates thousands of them: 8 KiB messages, 4 sends,
     * 16 receives, a 64 KiB source the server may only READ and a 64 KiB sink.
     */
    static final PeerShape PEER_SHAPE = PeerShape.builder().slotBytes(8 * 1024).sendSlots(4).receiveSlots(16)
            .source(64 * 1024, Access.REMOTE_READ).sinkBytes(64 * 1024).responderResources(4).build();

    final LoopbackFabric fabric;
    final RdmaTransport transport;
    final List<RawPeer> peers = new ArrayList<>();
    final List<ReceivedCall> held = new ArrayList<>();

    FuzzBed(LoopbackFabric fabric, TransportConfig config) throws VerbsException {
        this.fabric = fabric;
        RpcCallHandler handler = held::add;
        this.transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                config, handler);
        transport.addStrategy(new LkeyRegistrationStrategy());
    }

    /** connect() - a new peer announcing a 4 KiB receive size (RFC 8797), established or refused. */
    RawPeer connect() throws VerbsException {
        return connect(new ConnectionPrivateData(4096, 4096, false));
    }

    RawPeer connect(ConnectionPrivateData privateData) throws VerbsException {
        RawPeer p = RawPeer.open(fabric.provider(), transport.localAddress(), FuzzBed.PEER_SHAPE, privateData);
        peers.add(p);
        settle();
        return p;
    }

    /** settle() - run everything until idle; an endless loop is a finding (a spinning connection). */
    int settle() throws VerbsException {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            int work = fabric.runUntilIdle();
            work += transport.doWork();
            for (RawPeer p : peers) {
                work += p.poll();
            }
            if (work == 0) {
                return round;
            }
        }
        throw new AssertionError("the transport did not go idle within " + MAX_ROUNDS + " rounds: " + transport.usage()
                + " " + transport.statistics());
    }

    /** step() - one transport pass, one fabric step, one poll of every peer: lets work interleave. */
    void step() throws VerbsException {
        transport.doWork();
        fabric.step();
        for (RawPeer p : peers) {
            p.poll();
        }
    }

    long count(Counter c) {
        return transport.statistics().get(c);
    }

    ResourceUsage usage() {
        return transport.usage();
    }

    /** Releases every held call. */
    void releaseAll() {
        for (ReceivedCall c : held) {
            c.release();
        }
        held.clear();
    }

    /** Closes the peers and the transport and drives until the transport reports itself closed. */
    boolean closeTransport() throws VerbsException {
        releaseAll();
        for (RawPeer p : peers) {
            p.close();
        }
        transport.close();
        for (int round = 0; round < MAX_ROUNDS && !transport.isClosed(); round++) {
            fabric.runUntilIdle();
            transport.doWork();
        }
        return transport.isClosed();
    }

    @Override
    public void close() throws VerbsException {
        try {
            if (!transport.isClosed()) {
                closeTransport();
            }
        } finally {
            fabric.close();
        }
    }
}
