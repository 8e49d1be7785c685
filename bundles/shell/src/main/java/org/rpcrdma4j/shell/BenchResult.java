package org.rpcrdma4j.shell;

/**
 * BenchResult - the outcome of one benchmark run over one transport.
 *
 * @param transport the transport's label ("rdma", "tcp")
 * @param succeeded calls answered with an accepted SUCCESS
 * @param failed calls that failed (timeout, RPC error, connection)
 * @param notRun calls never started because the run timed out or was interrupted
 * @param elapsedNanos from the first call's start to the last one's end
 * @param latency latencies of the successful calls
 * @param firstFailure the first failure's description, or null when none failed
 * @param interrupted whether the run was stopped by an interrupt (Ctrl-C)
 */
record BenchResult(String transport, int succeeded, int failed, int notRun, long elapsedNanos, LatencySummary latency,
        String firstFailure, boolean interrupted) {

    /** @return calls started (answered or failed) */
    int attempted() {
        return succeeded + failed;
    }

    /** @return successful calls per second over the elapsed time, 0 when nothing succeeded */
    double callsPerSecond() {
        return elapsedNanos <= 0 || succeeded == 0 ? 0 : succeeded * 1e9 / elapsedNanos;
    }
}
