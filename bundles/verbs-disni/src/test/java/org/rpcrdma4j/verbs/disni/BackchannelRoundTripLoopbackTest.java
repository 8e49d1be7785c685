package org.rpcrdma4j.verbs.disni;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * The backward-direction round trip the lab runs over DiSNI on rxe ({@link BackchannelRoundTrip},
 * from {@code DisniConformanceTest}), run here over the loopback provider, so it is checked on
 * every build and not only where an RDMA device is up.
 */
class BackchannelRoundTripLoopbackTest {
    @Test
    void backwardDirectionRoundTripOverLoopback() throws Exception {
        try (LoopbackFabric fabric = LoopbackFabric.threaded()) {
            BackchannelRoundTrip.assertRoundTrip(fabric.provider(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        }
    }
}
