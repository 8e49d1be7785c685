import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * JfrTop - aggregates the flight recordings of the lab's server JVM by time window (run by
 * lab/labtool.py on the host with the JDK's source launcher: {@code java lab/JfrTop.java ...}).
 *
 * <p>Usage: {@code java JfrTop.java WINDOWS.tsv RECORDING.jfr...}. Each line of WINDOWS.tsv is
 * {@code label<TAB>start<TAB>end} (seconds since the epoch, the guest's clock; a label may have
 * several windows, e.g. the repetitions of one workload). Prints tab-separated lines per label:
 * {@code window label seconds cpuSamples allocatedBytes compilations},
 * {@code leaf label count frame} (top 8 executing methods by CPU samples),
 * {@code own label count frame} (top 5 by the first frame in org.rpcrdma4j or org.dcache),
 * {@code thread label count name} (top 5 sampled threads),
 * {@code town label thread count frame} (for each of the 3 most sampled threads, its top 8 own
 * frames as above: what the completion loop's thread does, apart from what the workers do),
 * {@code part label count part} (every CPU sample by what it served: {@code program} under the
 * program's own {@code dispatchOncRpcCall}, {@code reply} under oncrpc4j's {@code RpcCall} reply
 * methods (the transport's reply path, called by the program), {@code rest} with neither (receiving,
 * the completion loop, hand-off, Grizzly's reading, the JVM's and Karaf's own threads), {@code cut}
 * for a stack the recorder cut short before either: the program's share is the part of the user-mode
 * CPU that no transport can save),
 * {@code alloc label bytes frame} (top 5 allocation sites: the first frame outside the JDK),
 * {@code wait label count thread site} (top 12 places where threads parked or met a contended
 * monitor: jdk.ThreadPark and jdk.JavaMonitorEnter, which only the lab's waits window turns on;
 * the site is the event's kind and its first frames past the JDK's lock classes);
 * and per recording, whatever the windows, the JIT's cumulative work as HotSpot reports it about
 * once a second (jdk.CompilerStatistics): {@code compstat recording epochSeconds totalCompileMillis
 * compilations}, from which the report tells when compilation settled; and every compilation the
 * recording kept (jdk.Compilation, over its threshold: 100 ms in the lab's settings, as in settings=profile) and every
 * deoptimization (jdk.Deoptimization), whatever the windows, so that the report can say what the
 * JIT still compiled after the warm-up and why compiled code was thrown away:
 * {@code comp recording epochSeconds millis level osr class method} and
 * {@code deopt recording epochSeconds class method reason action}.
 */
public final class JfrTop {
    /** Frames of a wait's site, past the JDK's lock classes. */
    private static final int WAIT_FRAMES = 3;
    /** oncrpc4j's RpcCall methods that answer a call: there the program hands its reply to the transport. */
    private static final Set<String> REPLY_METHODS = Set.of("reply", "acceptedReply", "reject",
            "failProgramMismatch", "failProgramUnavailable", "failProcedureUnavailable", "failRpcGarbage", "failRpcSystem");

    private record Window(String label, long startNs, long endNs) {
    }

    private static final class Acc {
        double seconds;
        long samples;
        long allocated;
        long compilations;
        final Map<String, Long> leaf = new HashMap<>();
        final Map<String, Long> own = new HashMap<>();
        final Map<String, Long> threads = new HashMap<>();
        /** Own frames per sampled thread (names with digits as N). */
        final Map<String, Map<String, Long>> ownByThread = new HashMap<>();
        final Map<String, Long> parts = new HashMap<>();
        final Map<String, Long> alloc = new HashMap<>();
        final Map<String, Long> waits = new HashMap<>();
    }

    public static void main(String[] args) throws IOException {
        List<Window> windows = new ArrayList<>();
        Map<String, Acc> byLabel = new LinkedHashMap<>();
        try (BufferedReader r = Files.newBufferedReader(Path.of(args[0]))) {
            for (String line; (line = r.readLine()) != null;) {
                String[] f = line.split("\t");
                if (f.length < 3) {
                    continue;
                }
                long s = (long) (Double.parseDouble(f[1]) * 1e9);
                long e = (long) (Double.parseDouble(f[2]) * 1e9);
                windows.add(new Window(f[0], s, e));
                byLabel.computeIfAbsent(f[0], k -> new Acc()).seconds += (e - s) / 1e9;
            }
        }
        for (int i = 1; i < args.length; i++) {
            read(args[i], windows, byLabel);
        }
        print(byLabel);
    }

    /** Adds one recording's events to the windows they fall in; a damaged recording counts up to the damage. */
    private static void read(String file, List<Window> windows, Map<String, Acc> byLabel) {
        String name = Path.of(file).getFileName().toString();
        StringBuilder compstat = new StringBuilder();
        StringBuilder jit = new StringBuilder();
        try (RecordingFile rf = new RecordingFile(Path.of(file))) {
            while (rf.hasMoreEvents()) {
                RecordedEvent ev = rf.readEvent();
                String type = ev.getEventType().getName();
                if (type.equals("jdk.CompilerStatistics")) {
                    compstat.append(String.format("compstat\t%s\t%.3f\t%d\t%d%n", name,
                            ev.getStartTime().getEpochSecond() + ev.getStartTime().getNano() / 1e9,
                            ev.getDuration("totalTimeSpent").toMillis(), ev.getInt("compileCount")));
                    continue;
                }
                if (type.equals("jdk.Compilation") || type.equals("jdk.Deoptimization")) {
                    jit.append(jitLine(name, type, ev));
                }
                if (!type.equals("jdk.ExecutionSample") && !type.equals("jdk.ObjectAllocationSample")
                        && !type.equals("jdk.Compilation") && !type.equals("jdk.ThreadPark")
                        && !type.equals("jdk.JavaMonitorEnter")) {
                    continue;
                }
                long t = ev.getStartTime().getEpochSecond() * 1_000_000_000L + ev.getStartTime().getNano();
                for (Window w : windows) {
                    if (t >= w.startNs && t < w.endNs) {
                        add(byLabel.get(w.label), type, ev);
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("JfrTop: " + file + ": " + e.getMessage());
        }
        System.out.print(compstat);
        System.out.print(jit);
    }

    /** One compilation or deoptimization as a tab-separated line (see the class comment). */
    private static String jitLine(String recording, String type, RecordedEvent ev) {
        double at = ev.getStartTime().getEpochSecond() + ev.getStartTime().getNano() / 1e9;
        RecordedMethod m = ev.getValue("method");
        String cls = m == null ? "?" : m.getType().getName();
        String method = m == null ? "?" : m.getName();
        if (type.equals("jdk.Compilation")) {
            return String.format("comp\t%s\t%.3f\t%d\t%d\t%b\t%s\t%s%n", recording, at, ev.getDuration().toMillis(),
                    ev.getInt("compileLevel"), ev.getBoolean("isOsr"), cls, method);
        }
        return String.format("deopt\t%s\t%.3f\t%s\t%s\t%s\t%s%n", recording, at, cls, method,
                ev.getString("reason"), ev.getString("action"));
    }

    private static void add(Acc a, String type, RecordedEvent ev) {
        RecordedStackTrace st = ev.getStackTrace();
        List<RecordedFrame> frames = st == null ? List.of() : st.getFrames();
        switch (type) {
            case "jdk.ExecutionSample" -> {
                a.samples++;
                if (!frames.isEmpty()) {
                    a.leaf.merge(frame(frames.get(0)), 1L, Long::sum);
                }
                String own = frames.stream().filter(f -> isOwn(f)).findFirst().map(JfrTop::frame).orElse(null);
                if (own != null) {
                    a.own.merge(own, 1L, Long::sum);
                }
                a.parts.merge(part(frames, st != null && st.isTruncated()), 1L, Long::sum);
                RecordedThread th = ev.getThread("sampledThread");
                if (th != null) {
                    String thread = threadName(th);
                    a.threads.merge(thread, 1L, Long::sum);
                    a.ownByThread.computeIfAbsent(thread, k -> new HashMap<>())
                        .merge(own != null ? own : "(no own frame)", 1L, Long::sum);
                }
            }
            case "jdk.ObjectAllocationSample" -> {
                long weight = ev.getLong("weight");
                a.allocated += weight;
                String site = frames.stream().filter(f -> !isJdk(f)).findFirst().map(JfrTop::frame).orElse("?");
                a.alloc.merge(site, weight, Long::sum);
            }
            case "jdk.ThreadPark", "jdk.JavaMonitorEnter" -> {
                RecordedThread th = ev.getThread("eventThread");
                String thread = th == null ? "?" : threadName(th);
                a.waits.merge(thread + "\t" + waitSite(type, frames), 1L, Long::sum);
            }
            default -> a.compilations++;
        }
    }

    /**
     * @return where a thread waited: "park" or "monitor", then the first {@value #WAIT_FRAMES} frames
     *         past the JDK's park and lock machinery (Unsafe, LockSupport, java.util.concurrent.locks)
     *         and lambdas' hidden classes, innermost first
     */
    private static String waitSite(String type, List<RecordedFrame> frames) {
        StringBuilder site = new StringBuilder(type.equals("jdk.ThreadPark") ? "park" : "monitor");
        int n = 0;
        for (RecordedFrame f : frames) {
            String cls = f.getMethod().getType().getName();
            if (cls.startsWith("jdk.internal.misc.") || cls.startsWith("java.util.concurrent.locks.")
                    || cls.contains("$$Lambda")) {
                continue;
            }
            site.append(n == 0 ? ": " : " < ").append(frame(f));
            if (++n == WAIT_FRAMES) {
                break;
            }
        }
        return site.toString();
    }

    /**
     * @return what a CPU sample served, by the innermost of two markers on its stack: oncrpc4j's
     *         {@code RpcCall} reply methods (the transport's reply path, which the program calls)
     *         or a program's {@code dispatchOncRpcCall} (the innermost one: a host's dispatcher
     *         that calls the program under the same name is further out); see the class comment
     */
    static String part(List<RecordedFrame> frames, boolean truncated) {
        for (RecordedFrame f : frames) {
            String cls = f.getMethod().getType().getName();
            String m = f.getMethod().getName();
            if (cls.equals("org.dcache.oncrpc4j.rpc.RpcCall") && REPLY_METHODS.contains(m)) {
                return "reply";
            }
            if (m.equals("dispatchOncRpcCall")) {
                return "program";
            }
        }
        return truncated ? "cut" : "rest";
    }

    /** @return a thread's name with its numbers as N, so the threads of one pool count together */
    private static String threadName(RecordedThread th) {
        return String.valueOf(th.getJavaName()).replaceAll("[0-9]+", "N");
    }

    private static boolean isOwn(RecordedFrame f) {
        String n = f.getMethod().getType().getName();
        return n.startsWith("org.rpcrdma4j.") || n.startsWith("org.dcache.");
    }

    private static boolean isJdk(RecordedFrame f) {
        String n = f.getMethod().getType().getName();
        return n.startsWith("java.") || n.startsWith("jdk.") || n.startsWith("sun.");
    }

    private static void print(Map<String, Acc> byLabel) {
        StringBuilder out = new StringBuilder();
        byLabel.forEach((label, a) -> {
            out.append(String.format("window\t%s\t%.1f\t%d\t%d\t%d%n", label, a.seconds, a.samples, a.allocated, a.compilations));
            top(out, "leaf", label, a.leaf, 8);
            top(out, "own", label, a.own, 5);
            top(out, "thread", label, a.threads, 5);
            top(out, "part", label, a.parts, 4);
            a.threads.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(3)
                .forEach(t -> top(out, "town", label + "\t" + t.getKey(), a.ownByThread.get(t.getKey()), 8));
            top(out, "alloc", label, a.alloc, 5);
            top(out, "wait", label, a.waits, 12);
        });
        System.out.print(out);
    }

    private static String frame(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }

    private static void top(StringBuilder out, String kind, String label, Map<String, Long> counts, int n) {
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
            .forEach(e -> out.append(kind).append('\t').append(label).append('\t').append(e.getValue()).append('\t')
                .append(e.getKey()).append('\n'));
    }
}
