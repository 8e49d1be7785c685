package org.rpcrdma4j.registration.lkey.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.transport.conformance.RecordingProtectionDomain;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * What the lkey strategy registers, and for how long, on each transport type: READ sinks only
 * need local write on InfiniBand and RoCE, so nothing there grants remote access; on iWARP a
 * sink grants remote write only while its own READ runs (issue 15, defect 4).
 */
class SlabSinkPoolAccessTest {
    private static final int SINKS = 4;

    @ParameterizedTest
    @EnumSource(TransportType.class)
    void noRegistrationGrantsRemoteAccessOutsideItsRead(TransportType type) throws Exception {
        DeviceCapabilities caps = new DeviceCapabilities(type, 4, 4, 2, 64, 1024, 4096, 8, 8, false, false, 0);
        try (LoopbackFabric fabric = LoopbackFabric.builder().capabilities(caps).build()) {
            ProtectionDomain real = fabric.device().allocateProtectionDomain();
            RecordingProtectionDomain pd = new RecordingProtectionDomain(real);
            int baseline = fabric.registrationCount();
            SlabSinkPool pool = SlabSinkPool.create(new LkeyRegistrationStrategy(), pd,
                    new SinkPoolParameters(SINKS, 65536, 4096, caps.maxReadSge()));
            assertEquals(List.of(), pd.remoteAccess(), "a lifetime registration grants remote access");

            ReadRequestChain chain = new ReadRequestChain(caps.maxReadSge());
            List<ReadSink> sinks = new ArrayList<>();
            for (int i = 0; i < SINKS; i++) {
                ReadSink sink = pool.allocate();
                assertTrue(sink.prepareRead(chain.begin(i), pool.sinkLength(), 0x1000, 7), "prepared");
                assertEquals(1, chain.size(), "one RDMA READ, nothing else");
                assertEquals(65536, pool.sinkLength(), "a sink is as long as asked, not pageSize x maxReadSge (16 KiB here)");
                assertEquals(1, chain.first().sgeCount(), "one SGE for the whole window");
                assertEquals(65536, chain.first().sge(0).length());
                sinks.add(sink);
            }
            if (type == TransportType.IWARP) {
                assertEquals(SINKS, pd.remoteAccess().size(), "one remote-writable registration per READ in flight");
                assertEquals(SINKS, pool.liveRegistrations());
            } else {
                assertEquals(List.of(), pd.remoteAccess(), "READ sinks only need local write off iWARP");
                assertEquals(1, pool.liveRegistrations(), "one slab");
            }
            for (ReadSink sink : sinks) {
                sink.readCompleted(sinks.indexOf(sink) % 2 == 0);
            }
            assertEquals(type == TransportType.IWARP ? 0 : 1, pool.liveRegistrations(),
                    "every per-READ key is gone once its READ completed, successfully or not");
            assertEquals(baseline + pool.liveRegistrations(), fabric.registrationCount(), "the fabric agrees");
            sinks.forEach(ReadSink::free);
            ReadSink orphan = pool.allocate();
            assertTrue(orphan.prepareRead(chain.begin(9), 64, 0x1000, 7));
            orphan.free(); // a READ that never completed: freeing its sink still ends its key
            assertEquals(type == TransportType.IWARP ? 0 : 1, pool.liveRegistrations(), "no key outlives its sink");
            pool.close();
            assertEquals(baseline, fabric.registrationCount());
            real.close();
        }
    }
}
