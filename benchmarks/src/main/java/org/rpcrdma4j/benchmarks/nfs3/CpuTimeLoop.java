package org.rpcrdma4j.benchmarks.nfs3;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CpuTimeLoop - runs the rows of {@link Nfs3CallCostBenchmark} in a plain loop and reports the
 * calling thread's CPU time and allocated bytes per operation, mean and standard deviation over
 * rounds. On a host shared with other work JMH's wall-clock scores scatter with every preemption;
 * a thread's CPU time does not count the time it waited for a core.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar org.rpcrdma4j.benchmarks.nfs3.CpuTimeLoop [ROUNDS] [OPS] [ROW...]</pre>
 */
public final class CpuTimeLoop {

    @FunctionalInterface
    interface Row {
        Object run() throws Exception;
    }

    private CpuTimeLoop() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Nfs3CallCostBenchmark b = new Nfs3CallCostBenchmark();
        b.setUp();
        try {
            Map<String, Row> rows = new LinkedHashMap<>();
            rows.put("handleCheck", b::handleCheck);
            rows.put("handleCheckMac", b::handleCheckMac);
            rows.put("handleResolve", b::handleResolve);
            rows.put("attributesServer", b::attributesServer);
            rows.put("attributesMapRoute", b::attributesMapRoute);
            rows.put("attributesUnixNamed", b::attributesUnixNamed);
            rows.put("attributesPosix", b::attributesPosix);
            rows.put("attributesBasic", b::attributesBasic);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long self = Thread.currentThread().getId();
            System.out.printf("%-22s %12s %10s %12s%n", "row", "cpu ns/op", "+-sd", "B/op");
            for (Map.Entry<String, Row> row : rows.entrySet()) {
                if (args.length > 2 && !java.util.Arrays.asList(args).subList(2, args.length).contains(row.getKey())) {
                    continue;
                }
                Row r = row.getValue();
                for (int i = 0; i < ops * 3; i++) {
                    r.run(); // warm-up
                }
                double[] ns = new double[rounds];
                double bytes = 0;
                for (int k = 0; k < rounds; k++) {
                    long a0 = threads.getThreadAllocatedBytes(self);
                    long t0 = threads.getCurrentThreadCpuTime();
                    for (int i = 0; i < ops; i++) {
                        r.run();
                    }
                    long t1 = threads.getCurrentThreadCpuTime();
                    long a1 = threads.getThreadAllocatedBytes(self);
                    ns[k] = (t1 - t0) / (double) ops;
                    bytes += (a1 - a0) / (double) ops;
                }
                double mean = 0;
                for (double v : ns) {
                    mean += v / rounds;
                }
                double var = 0;
                for (double v : ns) {
                    var += (v - mean) * (v - mean) / Math.max(1, rounds - 1);
                }
                System.out.printf("%-22s %12.0f %10.0f %12.0f%n", row.getKey(), mean, Math.sqrt(var), bytes / rounds);
            }
        } finally {
            b.tearDown();
        }
    }
}
