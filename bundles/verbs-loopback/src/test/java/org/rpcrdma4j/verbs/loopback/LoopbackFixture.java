package org.rpcrdma4j.verbs.loopback;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.rpcrdma4j.verbs.VerbsProvider;
import org.rpcrdma4j.verbs.conformance.ConformanceFixture;

/** A conformance fixture over a fresh loopback fabric. */
final class LoopbackFixture implements ConformanceFixture {
    private final LoopbackFabric fabric;

    LoopbackFixture(LoopbackFabric fabric) {
        this.fabric = fabric;
    }

    LoopbackFabric fabric() {
        return fabric;
    }

    @Override
    public VerbsProvider provider() {
        return fabric.provider();
    }

    @Override
    public InetSocketAddress listenAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Override
    public int progress() {
        return fabric.mode() == FabricMode.DETERMINISTIC ? fabric.runUntilIdle() : 0;
    }

    @Override
    public void close() {
        fabric.close();
    }
}
