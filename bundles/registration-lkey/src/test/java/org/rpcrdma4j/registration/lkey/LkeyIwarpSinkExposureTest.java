package org.rpcrdma4j.registration.lkey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.RecordingHandler;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.FabricMode;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric.ReadRequestSink;

/**
 * On iWARP an RDMA Read Request shows the server's READ sink (STag and offset) to the peer. A
 * hostile client that has seen the sink key of its own READ, or of another client's, MUST NOT be
 * able to RDMA WRITE into another client's call data: no remote key of a sink may outlive its
 * READ (issue 15, defect 4).
 */
class LkeyIwarpSinkExposureTest {
    private static final int ROUNDS = 2_000;

    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void aPeerCannotWriteIntoAnotherClientsSinkWithAKeyItSawInAReadRequest() throws Exception {
        LoopbackFabric fabric = LoopbackFabric.builder().mode(FabricMode.DETERMINISTIC)
                .capabilities(LkeyIwarpTransportTest.IWARP).build();
        try (TransportHarness harness = new TransportHarness(fabric, TransportConfig.DEFAULTS, handler,
                new LkeyRegistrationStrategy())) {
            RawPeer victim = harness.connect();
            RawPeer attacker = harness.connect();

            CallBuilder victimCall = CallBuilder.msg(0x1501).inline(CallBuilder.bytes(8, 1)).chunk(CallBuilder.bytes(3000, 2));
            victimCall.send(victim, 0);
            harness.settle();
            ReadRequestSink victimSink = fabric.lastReadRequestSink().orElseThrow();
            List<ReceivedCall> held = handler.takeAll();
            assertEquals(1, held.size(), "the victim's call is delivered and held (its sink with it)");

            CallBuilder.msg(0x1502).inline(CallBuilder.bytes(8, 3)).chunk(CallBuilder.bytes(3000, 4)).send(attacker, 0);
            harness.settle();
            ReadRequestSink attackerSink = fabric.lastReadRequestSink().orElseThrow();
            assertNotEquals(victimSink.taggedOffset(), attackerSink.taggedOffset(), "two held calls, two sinks");
            handler.takeAll().forEach(ReceivedCall::release);

            byte[] junk = new byte[victimSink.length()];
            Arrays.fill(junk, (byte) 0x5a);
            // The key the attacker saw in its own READ, aimed at the victim's sink; then the
            // victim's own key (seen on the wire by a peer on the path, or guessed).
            attacker.writeRemote(junk, victimSink.taggedOffset(), attackerSink.stag());
            drive(harness);
            int failedWithOwnKey = attacker.sendsFailed();
            if (failedWithOwnKey == 0) {
                attacker.writeRemote(junk, victimSink.taggedOffset(), victimSink.stag());
                drive(harness);
            }

            ReceivedCall call = held.get(0);
            byte[] body = new byte[call.bodyLength()];
            call.copyBody().get(body);
            assertArrayEquals(victimCall.expectedBody(), body,
                    "another client overwrote the victim's call data through a sink key it learnt from a READ");
            assertTrue(attacker.sendsFailed() >= 1, "the hostile WRITE was refused by the server's device");
            assertEquals(0, harness.usage().sinkRegistrations(),
                    "a held call keeps its sink, but no sink key outlives its READ: " + harness.usage());
            call.release();
        }
    }

    /**
     * Runs the transport, the fabric and the clients for a bounded number of steps: the WRITE's
     * completion reaches the attacker, whatever the server does with the connection it broke.
     */
    private static void drive(TransportHarness harness) throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            harness.step();
        }
    }
}
