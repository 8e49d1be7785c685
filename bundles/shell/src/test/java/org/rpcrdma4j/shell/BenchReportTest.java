package org.rpcrdma4j.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class BenchReportTest {
    private static final LatencySummary LATENCY = new LatencySummary(2000, 12.34, 10.0, 40.5, 99.95);

    @Test
    void summaryLineCountsEveryCall() {
        assertEquals("rdma: 2000 calls, 0 failures, 0 not run",
                BenchReport.summary(new BenchResult("rdma", 2000, 0, 0, 1_000_000_000L, LATENCY, null, false)));
        assertEquals("tcp: 10 calls, 1 failure, 89 not run (interrupted); first failure: IOException: gone",
                BenchReport.summary(new BenchResult("tcp", 10, 1, 89, 1, LATENCY, "IOException: gone", true)));
    }

    @Test
    void tableOfRatesAndLatencies() {
        String text = Fakes.render(BenchReport.table(List.of(
                new BenchResult("rdma", 2000, 0, 0, 500_000_000L, LATENCY, null, false),
                new BenchResult("tcp", 0, 5, 0, 1, LatencySummary.EMPTY, "x", false))));
        assertEquals(List.of("rdma", "2000", "0", "4000", "12.3", "10.0", "40.5", "100.0"), Fakes.cells(Fakes.line(text, "rdma")));
        assertEquals(List.of("tcp", "0", "5", "0", "-", "-", "-", "-"), Fakes.cells(Fakes.line(text, "tcp")));
    }

    @Test
    void ratioOfRatesAndMedians() {
        BenchResult rdma = new BenchResult("rdma", 2000, 0, 0, 500_000_000L, LATENCY, null, false);
        BenchResult tcp = new BenchResult("tcp", 2000, 0, 0, 2_000_000_000L, new LatencySummary(2000, 50, 40, 90, 120), null, false);
        assertEquals("RDMA/TCP: calls/s 4.00x, p50 latency 0.25x", BenchReport.ratio(rdma, tcp));
        BenchResult failedTcp = new BenchResult("tcp", 0, 2000, 0, 1, LatencySummary.EMPTY, "x", false);
        assertEquals("RDMA/TCP: no ratio, a run had no successful call", BenchReport.ratio(rdma, failedTcp));
    }

    @Test
    void headerNamesWhatIsCalledAndTheBounds() {
        BenchPlan plan = new BenchPlan(2000, 8, 100003, 3, 0, Duration.ofSeconds(5), Duration.ofSeconds(120));
        assertEquals("NULL calls to program 100003 v3: 2000 per transport, 8 in flight, no arguments, call timeout 5000 ms, "
                + "run timeout 120 s", BenchReport.header(plan, BenchTarget.NFS_V3));
        BenchPlan large = new BenchPlan(10, 1, 100003, 3, 65536, Duration.ofSeconds(5), Duration.ofSeconds(120));
        assertEquals("NULL calls to program 100003 v3: 10 per transport, 1 in flight, 65536 argument bytes, call timeout 5000 ms, "
                + "run timeout 120 s", BenchReport.header(large, BenchTarget.NFS_V3));
    }
}
