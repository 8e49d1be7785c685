package org.rpcrdma4j.registration.frmr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * StrategyRemovalTest - deterministic: the active strategy (lkey) goes away while its READs are
 * in flight. Those READs complete into its sinks, the call arrives byte-exact, its pool is closed
 * once the call is released; the next call is pulled through the strategy that took over (FRMR).
 */
class StrategyRemovalTest {
    @Test
    void removingTheActiveStrategyWhileItsReadsAreInFlightLosesNothing() throws Exception {
        LkeyRegistrationStrategy lkey = new LkeyRegistrationStrategy();
        FrmrRegistrationStrategy frmr = new FrmrRegistrationStrategy();
        RecordingHandler handler = new RecordingHandler();
        TransportConfig config = TransportConfig.builder().readSinkLength(4096).maxOutstandingReads(2).build();
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.deterministic(), config, handler, lkey, frmr)) {
            RawPeer client = harness.connect();
            CallBuilder first = CallBuilder.msg(1).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(40_000, 2));
            first.send(client, 0);
            for (int i = 0; i < 100 && harness.usage().readsInFlight() == 0; i++) {
                harness.step();
            }
            assertTrue(harness.usage().readsInFlight() > 0, "READs of the first call are in flight");

            harness.transport().removeStrategy(lkey);
            assertSame(frmr, harness.transport().activeStrategy());
            CallBuilder second = CallBuilder.msg(2).inline(CallBuilder.bytes(8, 3)).chunk(CallBuilder.bytes(30_000, 4));
            second.send(client, 0);
            harness.settle();

            List<ReceivedCall> calls = handler.takeAll();
            assertEquals(2, calls.size());
            assertArrayEquals(first.expectedBody(), calls.get(0).copyBody().array());
            assertArrayEquals(second.expectedBody(), calls.get(1).copyBody().array());
            assertEquals(10, harness.transport().statistics().readsByStrategy().get(LkeyRegistrationStrategy.NAME));
            assertEquals(8, harness.transport().statistics().readsByStrategy().get(FrmrRegistrationStrategy.NAME));
            assertTrue(harness.usage().sinkRegistrations() >= 1, "the retired slab lives while its call is held");

            calls.forEach(ReceivedCall::release);
            harness.settle();
            ResourceUsage usage = harness.usage();
            assertEquals(0, usage.outstandingSinks(), usage.toString());
            assertEquals(0, usage.sinkRegistrations(), "the retired lkey pool is closed, FRMR keys invalidated: " + usage);
            assertTrue(harness.closeTransport(), "everything released: " + harness.usage());
        }
    }

    @Test
    void aQueuedCallPlannedWithARemovedStrategyIsPlannedAgainWithTheActiveOne() throws Exception {
        LkeyRegistrationStrategy lkey = new LkeyRegistrationStrategy();
        FrmrRegistrationStrategy frmr = new FrmrRegistrationStrategy();
        RecordingHandler handler = new RecordingHandler();
        TransportConfig config = TransportConfig.builder().readSinkLength(4096).maxOutstandingReads(1).build();
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.deterministic(), config, handler, lkey, frmr)) {
            RawPeer client = harness.connect();
            CallBuilder first = CallBuilder.msg(1).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(40_000, 2));
            CallBuilder second = CallBuilder.msg(2).inline(CallBuilder.bytes(8, 3)).chunk(CallBuilder.bytes(30_000, 4));
            first.send(client, 0);
            second.send(client, 0);
            for (int i = 0; i < 100 && harness.transport().statistics().get(Counter.CALLS_DEFERRED) < 2; i++) {
                harness.step();
            }
            assertEquals(2, harness.transport().statistics().get(Counter.CALLS_DEFERRED),
                    "both calls planned with lkey; the second waits behind the first");
            harness.transport().removeStrategy(lkey);
            harness.settle();

            List<ReceivedCall> calls = handler.takeAll();
            assertEquals(2, calls.size());
            assertArrayEquals(first.expectedBody(), calls.get(0).copyBody().array());
            assertArrayEquals(second.expectedBody(), calls.get(1).copyBody().array());
            assertEquals(10, harness.transport().statistics().readsByStrategy().get(LkeyRegistrationStrategy.NAME));
            assertEquals(8, harness.transport().statistics().readsByStrategy().get(FrmrRegistrationStrategy.NAME),
                    "the second call was planned again with FRMR");
            calls.forEach(ReceivedCall::release);
            harness.settle();
            assertEquals(0, harness.usage().outstandingSinks());
            assertEquals(0, harness.usage().sinkRegistrations());
            assertTrue(harness.closeTransport(), "everything released: " + harness.usage());
        }
    }
}
