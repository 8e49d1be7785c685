package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.conformance.ConformanceFixture;
import org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest;

/** The loopback provider in threaded mode passes the provider conformance suite. */
class ThreadedLoopbackConformanceTest extends VerbsProviderConformanceTest {
    @Override
    protected ConformanceFixture createFixture() {
        return new LoopbackFixture(LoopbackFabric.threaded());
    }
}
