package org.rpcrdma4j.fuzz;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.RdmaTransport;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.RpcCallHandler;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * FuzzBed - a transport on a deterministic loopback fabric with the lkey strategy, any number of
 * {@link Peer}s (which may vanish at any time), and a handler that holds every call until the
 * test releases it. Everything runs on the test's thread; {@link #settle()} drives the fabric, the
 * transport and the peers until none has work.
 *
 * <p>Ownership: the test owns it and MUST {@link #close()} it.
 */
final class FuzzBed implements AutoCloseable {
    private static final int MAX_ROUNDS = 20_000;

    final LoopbackFabric fabric;
    final RdmaTransport transport;
    final List<Peer> peers = new ArrayList<>();
    final List<ReceivedCall> held = new ArrayList<>();

    FuzzBed(LoopbackFabric fabric, TransportConfig config) throws VerbsException {
        this.fabric = fabric;
        RpcCallHandler handler = held::add;
        this.transport = RdmaTransport.open(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                config, handler);
        transport.addStrategy(new LkeyRegistrationStrategy());
    }

    /** connect() - a new peer announcing a 4 KiB receive size (RFC 8797), established or refused. */
    Peer connect() throws VerbsException {
        return connect(new ConnectionPrivateData(4096, 4096, false));
    }

    Peer connect(ConnectionPrivateData privateData) throws VerbsException {
        Peer p = new Peer(fabric.provider(), transport.localAddress(), privateData);
        peers.add(p);
        settle();
        return p;
    }

    /** settle() - run everything until idle; an endless loop is a finding (a spinning connection). */
    int settle() throws VerbsException {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            int work = fabric.runUntilIdle();
            work += transport.doWork();
            for (Peer p : peers) {
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
        for (Peer p : peers) {
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
        for (Peer p : peers) {
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
