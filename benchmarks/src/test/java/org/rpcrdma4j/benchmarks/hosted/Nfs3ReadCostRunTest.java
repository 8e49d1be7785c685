package org.rpcrdma4j.benchmarks.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nfs3ReadCostRunTest - the standing, short form of the NFSv3 READ cost run: the real NFSv3
 * program over both transports, one READ compared byte for byte with the file, then a few
 * batches of 32 random 4 KiB READs each checked on the hot path. Asserts what was measured
 * (every round of both transports, the server's threads found and charged), never how fast.
 */
class Nfs3ReadCostRunTest {

    @Test
    void bothTransportsServeCheckedReadsAndTheServersThreadsAreMeasured() throws Exception {
        Map<String, List<Nfs3ReadCostRun.Sample>> samples =
                Nfs3ReadCostRun.measure(List.of(BenchServer.RDMA, BenchServer.TCP), 2, 5, 5);
        assertEquals(List.of(BenchServer.RDMA, BenchServer.TCP), List.copyOf(samples.keySet()));
        samples.forEach((transport, rounds) -> {
            assertEquals(2, rounds.size(), transport);
            for (Nfs3ReadCostRun.Sample s : rounds) {
                assertTrue(s.serverCpuNs() > 0, () -> transport + ": no CPU charged to the server's threads: " + s);
                // user time is counted in scheduler ticks: over a few calls it may read 0, never less
                assertTrue(s.serverUserNs() >= 0, () -> transport + ": " + s);
                assertTrue(s.serverAllocBytes() >= 0, () -> transport + ": " + s);
                assertTrue(s.clientCpuNs() > 0, () -> transport + ": the client's thread not found: " + s);
            }
        });
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Nfs3ReadCostRun.measure(List.of(BenchServer.TCP), 1, 5, 0));
        assertThrows(IllegalArgumentException.class, () -> Nfs3ReadCostRun.measure(List.of(BenchServer.TCP), 2, 0, 0));
    }
}
