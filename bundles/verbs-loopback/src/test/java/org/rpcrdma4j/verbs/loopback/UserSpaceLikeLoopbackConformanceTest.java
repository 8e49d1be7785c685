package org.rpcrdma4j.verbs.loopback;

import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.conformance.ConformanceFixture;
import org.rpcrdma4j.verbs.conformance.VerbsProviderConformanceTest;

/**
 * The loopback provider configured like user-space verbs on iWARP (no fast registration, no
 * remote invalidation, READ sinks need REMOTE_WRITE, one SGE per READ) passes the suite: the
 * optional-feature tests take their other branch.
 */
class UserSpaceLikeLoopbackConformanceTest extends VerbsProviderConformanceTest {
    static final DeviceCapabilities USER_SPACE_IWARP =
            new DeviceCapabilities(TransportType.IWARP, 4, 4, 1, 64, 1024, 4096, 8, 8, false, false, 0);

    @Override
    protected ConformanceFixture createFixture() {
        return new LoopbackFixture(LoopbackFabric.builder().capabilities(USER_SPACE_IWARP).build());
    }
}
