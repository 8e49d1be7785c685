package org.rpcrdma4j.registration.frmr.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.registration.frmr.FrmrRegistrationStrategy;
import org.rpcrdma4j.transport.conformance.RecordingProtectionDomain;
import org.rpcrdma4j.transport.spi.ReadRequestChain;
import org.rpcrdma4j.transport.spi.ReadSink;
import org.rpcrdma4j.transport.spi.SinkPoolParameters;
import org.rpcrdma4j.verbs.DeviceCapabilities;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.TransportType;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * What FRMR without fast registration (user-space verbs) registers, how often, and with which
 * access: on InfiniBand and RoCE each window once, local write only, reused by every later READ;
 * on iWARP one remote-writable registration per READ, gone when the READ is.
 */
class UserVerbsSinkPoolTest {
    private static final int SINKS = 4;
    private static final int ROUNDS = 3;

    @ParameterizedTest
    @EnumSource(TransportType.class)
    void registersEachWindowOnceOffIwarpAndPerReadOnIwarp(TransportType type) throws Exception {
        DeviceCapabilities caps = capabilities(type);
        try (LoopbackFabric fabric = LoopbackFabric.builder().capabilities(caps).build()) {
            ProtectionDomain real = fabric.device().allocateProtectionDomain();
            RecordingProtectionDomain pd = new RecordingProtectionDomain(real);
            int baseline = fabric.registrationCount();
            UserVerbsSinkPool pool = UserVerbsSinkPool.create(new FrmrRegistrationStrategy(), pd,
                    new SinkPoolParameters(SINKS, 65536, 4096, caps.maxReadSge()));
            assertEquals(0, pd.registrations(), "nothing is registered before a READ needs it");

            ReadRequestChain chain = new ReadRequestChain(caps.maxReadSge());
            for (int round = 0; round < ROUNDS; round++) {
                List<ReadSink> sinks = new ArrayList<>();
                for (int i = 0; i < SINKS; i++) {
                    ReadSink sink = pool.allocate();
                    assertTrue(sink.prepareRead(chain.begin(i), 4096, 0x1000, 7), "prepared");
                    assertEquals(1, chain.size(), "one RDMA READ, nothing else");
                    assertEquals(1, chain.first().sgeCount());
                    assertEquals(4096, chain.first().sge(0).length());
                    sinks.add(sink);
                }
                assertEquals(SINKS, pool.liveRegistrations(), "one registration per window in use");
                for (ReadSink sink : sinks) {
                    sink.readCompleted(sinks.indexOf(sink) % 2 == 0);
                    sink.free();
                }
                if (type == TransportType.IWARP) {
                    assertEquals(0, pool.liveRegistrations(), "every per-READ key ends with its READ");
                } else {
                    assertEquals(SINKS, pool.liveRegistrations(), "the windows stay registered for the next READs");
                }
                assertEquals(baseline + pool.liveRegistrations(), fabric.registrationCount(), "the fabric agrees");
            }
            if (type == TransportType.IWARP) {
                assertEquals(SINKS * ROUNDS, pd.registrations(), "one registration per READ");
                assertEquals(SINKS * ROUNDS, pd.remoteAccess().size(), "each grants remote write, for its READ only");
            } else {
                assertEquals(SINKS, pd.registrations(), "one registration per window, over " + ROUNDS + " rounds of READs");
                assertEquals(List.of(), pd.remoteAccess(), "READ sinks only need local write off iWARP");
            }
            pool.close();
            assertEquals(0, pool.liveRegistrations());
            assertEquals(baseline, fabric.registrationCount(), "close releases the kept registrations");
            real.close();
        }
    }

    @Test
    void aRefusedRegistrationRefusesTheReadAndIsTriedAgainNextTime() throws Exception {
        DeviceCapabilities caps = capabilities(TransportType.ROCE);
        try (LoopbackFabric fabric = LoopbackFabric.builder().capabilities(caps).build()) {
            ProtectionDomain real = fabric.device().allocateProtectionDomain();
            RecordingProtectionDomain pd = new RecordingProtectionDomain(real);
            UserVerbsSinkPool pool = UserVerbsSinkPool.create(new FrmrRegistrationStrategy(), pd,
                    new SinkPoolParameters(1, 65536, 4096, caps.maxReadSge()));
            ReadRequestChain chain = new ReadRequestChain(caps.maxReadSge());
            ReadSink sink = pool.allocate();
            pd.refuse(true);
            assertFalse(sink.prepareRead(chain.begin(0), 4096, 0x1000, 7), "refused by the device");
            assertEquals(0, chain.size(), "nothing added to the chain");
            assertEquals(0, pool.liveRegistrations());
            pd.refuse(false);
            assertTrue(sink.prepareRead(chain.begin(0), 4096, 0x1000, 7), "registered on the next READ");
            assertEquals(1, pool.liveRegistrations());
            sink.readCompleted(true);
            sink.free();
            pool.close();
            assertEquals(0, pool.liveRegistrations());
            real.close();
        }
    }

    private static DeviceCapabilities capabilities(TransportType type) {
        return new DeviceCapabilities(type, 4, 4, 2, 64, 1024, 4096, 8, 8, false, false, 0);
    }
}
