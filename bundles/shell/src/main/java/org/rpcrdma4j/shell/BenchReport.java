package org.rpcrdma4j.shell;

import java.util.List;
import java.util.Locale;

import org.apache.karaf.shell.support.table.ShellTable;

/**
 * BenchReport - how {@code rpcrdma:bench} prints its results: one summary line per transport
 * (calls succeeded, failed, not run, and the first failure), a table of rates and latencies, and
 * the RDMA/TCP ratios when both ran.
 */
final class BenchReport {
    private BenchReport() {
    }

    /**
     * @param plan the run's settings
     * @param target the program called
     * @return the header line
     */
    static String header(BenchPlan plan, BenchTarget target) {
        return "NULL calls to program " + target + ": " + plan.calls() + " per transport, " + plan.concurrency()
                + " in flight, " + (plan.argumentBytes() == 0 ? "no arguments" : plan.argumentBytes() + " argument bytes")
                + ", call timeout " + plan.callTimeout().toMillis() + " ms, run timeout "
                + plan.runTimeout().toSeconds() + " s";
    }

    /**
     * @param r a result
     * @return e.g. "rdma: 2000 calls, 0 failures, 0 not run" plus the first failure, and
     *         " (interrupted)" when the run was stopped
     */
    static String summary(BenchResult r) {
        StringBuilder b = new StringBuilder();
        b.append(r.transport()).append(": ").append(r.succeeded()).append(" calls, ").append(r.failed())
                .append(r.failed() == 1 ? " failure, " : " failures, ").append(r.notRun()).append(" not run");
        if (r.interrupted()) {
            b.append(" (interrupted)");
        }
        if (r.firstFailure() != null) {
            b.append("; first failure: ").append(r.firstFailure());
        }
        return b.toString();
    }

    /**
     * @param results the runs, in the order they ran
     * @return one row per run: calls/s, mean, p50, p99 and p99.9 latency in microseconds
     */
    static ShellTable table(List<BenchResult> results) {
        ShellTable table = new ShellTable();
        table.column("Transport");
        table.column("Calls").alignRight();
        table.column("Failures").alignRight();
        table.column("Calls/s").alignRight();
        table.column("Mean µs").alignRight();
        table.column("p50 µs").alignRight();
        table.column("p99 µs").alignRight();
        table.column("p99.9 µs").alignRight();
        for (BenchResult r : results) {
            LatencySummary l = r.latency();
            table.addRow().addContent(r.transport(), r.succeeded(), r.failed(), format("%.0f", r.callsPerSecond()),
                    micros(l.meanMicros()), micros(l.p50Micros()), micros(l.p99Micros()), micros(l.p999Micros()));
        }
        return table;
    }

    /**
     * @param rdma the RDMA run
     * @param tcp the TCP run
     * @return e.g. "RDMA/TCP: calls/s 2.31x, p50 latency 0.43x", or a line saying why there is no
     *         ratio (a run with no successful call)
     */
    static String ratio(BenchResult rdma, BenchResult tcp) {
        if (rdma.succeeded() == 0 || tcp.succeeded() == 0) {
            return "RDMA/TCP: no ratio, a run had no successful call";
        }
        return "RDMA/TCP: calls/s " + format("%.2f", rdma.callsPerSecond() / tcp.callsPerSecond()) + "x, p50 latency "
                + format("%.2f", rdma.latency().p50Micros() / tcp.latency().p50Micros()) + "x";
    }

    /** @return the value with one decimal, or "-" for NaN (no sample) */
    static String micros(double value) {
        return Double.isNaN(value) ? "-" : format("%.1f", value);
    }

    private static String format(String pattern, double value) {
        return String.format(Locale.ROOT, pattern, value);
    }
}
