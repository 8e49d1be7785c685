package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.conformance.ConformanceFixture;
import org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest;

/** The loopback provider in deterministic mode passes the provider conformance suite. */
class DeterministicLoopbackConformanceTest extends VerbsProviderConformanceTest {
    @Override
    protected ConformanceFixture createFixture() {
        return new LoopbackFixture(LoopbackFabric.deterministic());
    }
}
