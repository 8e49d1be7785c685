package org.rpcrdma4j.benchmarks.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.transport.TransportConfig;

/**
 * ScaleRunTest - the standing, fast form of the scale run: a few hundred concurrent connections on
 * the threaded loopback provider, each keeping calls in flight, served by two completion loops;
 * every client gets every answer (byte-checked echo) and no pool starves. Asserts counts only,
 * never times (the run's deadline only keeps a broken build from hanging).
 */
class ScaleRunTest {
    private static final int CONNECTIONS = 300;
    private static final int CALLS = 10;
    private static final int WARMUP = 2;

    @Test
    void everyOneOfAFewHundredConcurrentClientsIsAnsweredAndNoneStarves() throws Exception {
        ScaleRun.Settings settings = new ScaleRun.Settings(CONNECTIONS, 2, CALLS, WARMUP, 64, new int[] {2}, 1, 300);
        ScaleRun.LoopResult r = ScaleRun.run(settings, 2);
        assertEquals(CONNECTIONS, r.clients().size());
        for (ScaleRun.ClientResult c : r.clients()) {
            assertEquals(CALLS + WARMUP, c.answered(), () -> "client " + c.index() + " was not answered every call: " + c);
            assertEquals(0, c.failed(), () -> "client " + c.index() + " got wrong answers: " + c);
        }
        assertEquals(0, r.starvedClients());
        assertEquals((long) CONNECTIONS * (CALLS + WARMUP), r.callsDelivered(), "the transport delivered each call once");
        assertEquals(0, r.serverReadSinkStarvation());
        assertEquals(0, r.serverStagingStarvation());
        assertEquals(0, r.serverReceiveStarvation(), "every connection's receives were reposted");
        assertEquals(0, r.serverSendBufferStarvation());
        TransportConfig c = TransportConfig.DEFAULTS;
        int sendBufferPageRoom = 4096; // SendQueue.ITEM_ROOM: after each send buffer, for a reply's DDP item of a page
        long perConnection = (long) c.receiveContexts() * c.inlineReceiveThreshold()
                + (long) c.sendBuffers() * (c.maxInlineSend() + sendBufferPageRoom);
        assertEquals(CONNECTIONS * perConnection, r.registeredBytes(),
                "per connection its receive and send buffers; no pool registered (no READ, no large reply)");
    }
}
