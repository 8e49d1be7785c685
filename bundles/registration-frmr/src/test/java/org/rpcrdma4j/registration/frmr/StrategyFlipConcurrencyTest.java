package org.rpcrdma4j.registration.frmr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.lkey.LkeyRegistrationStrategy;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.Counter;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.ResourceUsage;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.transport.TransportStatistics;
import org.rpcrdma4j.transport.conformance.CallBuilder;
import org.rpcrdma4j.transport.conformance.TransportHarness;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * StrategyFlipConcurrencyTest - the threaded loopback fabric, a completion thread driving the
 * transport, workers that check and release calls, and a client thread that flips the active
 * strategy (lkey / FRMR) before every call while READs of earlier calls are still in flight.
 * Every call must arrive byte-exact, and afterwards nothing may be held.
 */
class StrategyFlipConcurrencyTest {
    private static final int CALLS = 400;
    private static final int WINDOW = 8;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyCallArrivesByteExactWhileTheStrategyFlipsOnEveryCall() throws Exception {
        LkeyRegistrationStrategy lkey = new LkeyRegistrationStrategy();
        FrmrRegistrationStrategy frmr = new FrmrRegistrationStrategy();
        Map<Integer, byte[]> expected = new ConcurrentHashMap<>();
        AtomicInteger verified = new AtomicInteger();
        AtomicInteger mismatches = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(2);
        TransportConfig config = TransportConfig.builder().readSinkLength(16 * 1024).readSinkCount(64).build();
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.threaded(), config, call -> workers.execute(() -> {
            byte[] want = expected.remove(call.xid());
            byte[] got = call.copyBody().array();
            if (want == null || !Arrays.equals(want, got)) {
                mismatches.incrementAndGet();
            }
            call.release();
            verified.incrementAndGet();
        }), lkey, frmr)) {
            RawPeer client = harness.connect();
            AtomicBoolean stop = new AtomicBoolean();
            Thread completion = new Thread(() -> {
                while (!stop.get()) {
                    if (harness.transport().doWork() == 0) {
                        Thread.onSpinWait();
                    }
                }
            }, "transport-completion");
            completion.start();
            for (int i = 0; i < CALLS; i++) {
                harness.transport().activateStrategy(i % 2 == 0 ? LkeyRegistrationStrategy.NAME : FrmrRegistrationStrategy.NAME);
                CallBuilder call = callNumber(i);
                expected.put(call.xid(), call.expectedBody());
                while (i - verified.get() >= WINDOW || !client.canSend()) {
                    client.poll();
                    Thread.onSpinWait();
                }
                call.send(client, 0);
                client.poll();
            }
            while (verified.get() < CALLS) {
                client.poll();
                Thread.onSpinWait();
            }
            stop.set(true);
            completion.join();
            harness.transport().doWork();
            assertEquals(0, mismatches.get(), "calls not byte-exact");
            assertTrue(expected.isEmpty(), "calls never delivered: " + expected.keySet());
            TransportStatistics stats = harness.transport().statistics();
            assertEquals(CALLS, stats.get(Counter.CALLS_DELIVERED));
            assertTrue(stats.readsByStrategy().get(LkeyRegistrationStrategy.NAME) > 0);
            assertTrue(stats.readsByStrategy().get(FrmrRegistrationStrategy.NAME) > 0);
            ResourceUsage usage = harness.usage();
            assertEquals(0, usage.heldReceiveContexts(), usage.toString());
            assertEquals(0, usage.outstandingSinks(), usage.toString());
            assertEquals(0, usage.readsInFlight(), usage.toString());
            assertTrue(harness.closeTransport(), "everything released: " + harness.usage());
        } finally {
            workers.shutdownNow();
        }
    }

    /** Calls of varied shapes: inline only, one chunk, several chunks, position zero. */
    private static CallBuilder callNumber(int i) {
        int xid = 0x10000 + i;
        switch (i % 4) {
            case 0:
                return CallBuilder.msg(xid).inline(CallBuilder.bytes(64 + 4 * (i % 50), i));
            case 1:
                return CallBuilder.msg(xid).inline(CallBuilder.bytes(24, i)).chunk(CallBuilder.bytes(1 + i * 97 % 40_000, i + 1))
                        .inline(CallBuilder.bytes(8, i + 2));
            case 2:
                return CallBuilder.msg(xid).inline(CallBuilder.bytes(12, i)).chunk(CallBuilder.bytes(5000, i + 1), 2000, 3000)
                        .inline(CallBuilder.bytes(100, i + 2)).chunk(CallBuilder.bytes(33 + i % 7, i + 3));
            default:
                return CallBuilder.nomsg(xid).inline(CallBuilder.bytes(20_000 + 4 * (i % 100), i)).chunk(CallBuilder.bytes(3 + i % 5, i + 1))
                        .inline(CallBuilder.bytes(40, i + 2));
        }
    }
}
