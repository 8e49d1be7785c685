package org.rpcrdma4j.transport.oncrpc;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * CrewThreads - the threads of one completion loop of a hosted transport, found by the names
 * {@link RdmaHostedTransport} gives them ("rpcrdma4j-rdma-PORT-loop-N", or "...-loop-N-C" for
 * each of a leader/followers crew), and what each is doing.
 */
public final class CrewThreads {
    private CrewThreads() {
    }

    /** @return the live threads of loop {@code loop} of the transport on {@code port} */
    public static List<Thread> threads(int port, int loop) {
        String name = "rpcrdma4j-rdma-" + port + "-loop-" + loop;
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name) || t.getName().startsWith(name + "-"))
                .sorted((a, b) -> a.getName().compareTo(b.getName()))
                .collect(Collectors.toList());
    }

    /** @return whether {@code t} is parked in {@code className.method} */
    public static boolean parkedIn(Thread t, String classSuffix, String method) {
        Thread.State state = t.getState();
        return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                && Arrays.stream(t.getStackTrace())
                        .anyMatch(f -> f.getClassName().endsWith(classSuffix) && f.getMethodName().equals(method));
    }

    /** @return whether {@code t} waits to lead its loop (the standby of leader/followers) */
    public static boolean standingBy(Thread t) {
        return parkedIn(t, "LoopCrew", "takeLeadership");
    }

    /** @return whether {@code t} sleeps on its loop's completion channel */
    public static boolean onChannel(Thread t) {
        return parkedIn(t, "CompletionChannel", "await");
    }

    /**
     * awaitAsleep() - wait until the loop's crew is all parked: one thread on the completion
     * channel, every other standing by.
     *
     * @return true when it was, within {@code timeout}
     */
    public static boolean awaitAsleep(int port, int loop, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            List<Thread> crew = threads(port, loop);
            long sleeping = crew.stream().filter(CrewThreads::onChannel).count();
            long standing = crew.stream().filter(CrewThreads::standingBy).count();
            if (!crew.isEmpty() && sleeping == 1 && sleeping + standing == crew.size()) {
                return true;
            }
            Thread.sleep(5);
        }
        return false;
    }

    /** @return each crew thread's name, state and top frames, for a failure message */
    public static String describe(int port, int loop) {
        return threads(port, loop).stream()
                .map(t -> t.getName() + " " + t.getState() + " at "
                        + Arrays.toString(Arrays.copyOf(t.getStackTrace(), Math.min(8, t.getStackTrace().length))))
                .collect(Collectors.joining("; ", "[", "]"));
    }
}
