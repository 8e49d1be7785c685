package org.rpcrdma4j.transport.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.ConnectionPrivateData;
import org.rpcrdma4j.testing.rawpeer.RawPeer;
import org.rpcrdma4j.transport.ReceivedCall;
import org.rpcrdma4j.transport.TransportConfig;
import org.rpcrdma4j.verbs.loopback.LoopbackFabric;

/**
 * ConnectionLogTest - what an operator reads about connections: one INFO line when one opens
 * (client, credits, inline sizes, remote invalidation) and one when it closes (why, what it did),
 * and nothing per call above DEBUG. slf4j-simple (the test binding) writes to System.err, which
 * the test captures.
 */
class ConnectionLogTest {
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        System.err.print(captured.toString(StandardCharsets.UTF_8));
    }

    private List<String> connectionLines() {
        return Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
                .filter(l -> l.contains("RPC-over-RDMA connection from")).toList();
    }

    @Test
    void aConnectionLogsOneLineWhenItOpensAndOneWhenItClosesAndNothingPerCall() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        try (TransportHarness harness = new TransportHarness(LoopbackFabric.builder().build(), TransportConfig.DEFAULTS,
                handler)) {
            RawPeer client = harness.connect(new ConnectionPrivateData(4096, 2048, true));
            harness.settle();
            for (int i = 0; i < 20; i++) {
                CallBuilder.msg(0x700 + i).inline(CallBuilder.bytes(8, i)).send(client, 1);
                harness.settle();
            }
            handler.takeAll().forEach(ReceivedCall::release);
            client.disconnect();
            harness.settle();
            List<String> lines = connectionLines();
            assertEquals(2, lines.size(), String.join("\n", lines));
            String opened = lines.get(0);
            assertTrue(opened.contains("INFO"), opened);
            assertTrue(opened.contains(" opened: credits " + TransportConfig.DEFAULTS.credits()), opened);
            assertTrue(opened.contains("inline receive " + TransportConfig.DEFAULTS.inlineReceiveThreshold() + " B"), opened);
            assertTrue(opened.contains("inline send 2048 B (client receives 2048 B)"), opened);
            // The client asked for Send With Invalidate and the loopback device can post it.
            assertTrue(opened.endsWith("remote invalidation on"), opened);
            String closed = lines.get(1);
            assertTrue(closed.contains("INFO"), closed);
            assertTrue(closed.contains(" closed: disconnected (the client left, or the transport stopped) (20 calls, 0 READs, "), closed);
            assertTrue(opened.contains("from " + client.localAddress()), opened + " names the client " + client.localAddress());
        }
    }
}
