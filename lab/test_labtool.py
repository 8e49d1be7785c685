"""Tests of lab/labtool.py and lab/records.py (python3 -m unittest lab/test_labtool.py).

The committed reports are the reference: labtool.py report, given a committed results folder and
the arguments lab/run gave it, must write the committed .md again, byte for byte.
"""
import collections
import contextlib
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import labtool  # noqa: E402
import records  # noqa: E402

# lab/run's arguments to `labtool.py report` (but lab_dir, the checkout's own path) are kept in
# each results folder's report-args.txt, one key=value a line, so a committed report can be
# written again from its folder. Folders without that file are not regenerated here.


def report_args(rdir):
    """The arguments lab/run gave labtool.py report for this results folder."""
    with open(os.path.join(rdir, "report-args.txt"), encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if line.strip())


RESULTS_WITH_ARGS = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(LAB, "results", "*", "report-args.txt")))

# The two sections made from the flight recordings (raw/jfr/, not committed): without them the
# report says "no flight recording" there, so these sections are compared only when raw/jfr/ exists.
JFR_SECTIONS = ("## Compilation over the JVM's life (JFR)", "## Where our server's time goes (JFR)")


def without_jfr_sections(text):
    out, skipping = [], False
    for line in text.split("\n"):
        if line.startswith("## "):
            skipping = line in JFR_SECTIONS
            if skipping:
                out.append(line + "\n(compared only with raw/jfr/)")
                continue
        if not skipping:
            out.append(line)
    return "\n".join(out)


def report(rdir, args, out_dir):
    out = os.path.join(out_dir, "report.md")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = labtool.report([rdir, out] + ["%s=%s" % kv for kv in args.items()])
    with open(out, encoding="utf-8") as f:
        return status, f.read(), err.getvalue()


def sampled_enough(test, out, threads, least=20):
    """Skips the test when JFR sampled the program's own threads fewer than `least` times: its
    sampler suspends a thread to walk its stack, and on a starved CPU (one core, or both busy:
    a lab run beside a build) it took 0-1 samples of two spinning threads in 1.5 s; what the test
    asserts needs samples to assert on. Runs whenever the sampler gets its CPU (CI's idle 2 cores)."""
    got = sum(int(f[2]) for f in (line.split("\t") for line in out.splitlines())
              if f[0] == "thread" and f[-1] in threads)
    if got < least:
        test.skipTest("JFR took %d samples of %s (under %d): the CPU was starved" % (got, ", ".join(threads), least))


def jfrtop_of_program(name, source, jvm_args=()):
    """JfrTop's lines for a Java program (class `name`, its source) run under the lab's own JFC,
    the whole of its life as one window labelled lkey.rxe/randread."""
    with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
        jfc = re.search(r"<<'JFC'\n(.*?)\nJFC\n", f.read(), re.S).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "lab.jfc"), "w", encoding="utf-8") as f:
            f.write(jfc)
        with open(os.path.join(tmp, name + ".java"), "w", encoding="utf-8") as f:
            f.write(source)
        rec = os.path.join(tmp, name + ".jfr")
        t0 = time.time() - 1
        subprocess.run(["java", *jvm_args, "-XX:StartFlightRecording=settings=%s,filename=%s" % (
            os.path.join(tmp, "lab.jfc"), rec), os.path.join(tmp, name + ".java")],
            check=True, capture_output=True, timeout=120)
        windows = os.path.join(tmp, "windows.tsv")
        with open(windows, "w", encoding="utf-8") as f:
            f.write("lkey.rxe/randread\t%.3f\t%.3f\n" % (t0, time.time() + 1))
        return subprocess.run(["java", os.path.join(LAB, "JfrTop.java"), windows, rec],
                              check=True, capture_output=True, text=True, timeout=300).stdout


class CommittedReports(unittest.TestCase):
    def test_reports_are_written_again_byte_for_byte(self):
        self.assertGreaterEqual(len(RESULTS_WITH_ARGS), 2, "results folders with report-args.txt")
        for rdir in RESULTS_WITH_ARGS:
            with self.subTest(results=os.path.basename(rdir)), tempfile.TemporaryDirectory() as tmp:
                with open(rdir + ".md", encoding="utf-8") as f:
                    expected = f.read()
                _, got, err = report(rdir, dict(report_args(rdir), lab_dir=LAB), tmp)
                self.assertNotIn("labtool:", err)  # no record outside the schema
                if not os.path.isdir(os.path.join(rdir, "raw", "jfr")):
                    expected, got = without_jfr_sections(expected), without_jfr_sections(got)
                self.assertEqual(expected, got)


class Schema(unittest.TestCase):
    def test_the_workload_writes_the_kinds_of_the_schema(self):
        p = subprocess.run([sys.executable, os.path.join(LAB, "labtool.py"), "check-schema",
                            os.path.join(LAB, "guest", "workload")], capture_output=True, text=True)
        self.assertEqual(0, p.returncode, p.stderr)

    def test_a_workload_that_disagrees_fails(self):
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            script = f.read()
        script = script.replace('rec transports $F transports-$F.txt', 'rec transports $F')
        script = re.sub(r"(?m)^.*\brec recall\b.*$", "  rec recalled $K x", script)
        problems = records.check_workload(script)
        self.assertTrue(any("'recalled' is not in lab/records.py" in p for p in problems), problems)
        self.assertTrue(any("'recall' is written nowhere" in p for p in problems), problems)
        self.assertFalse(any("transports" in p for p in problems), problems)  # the output is optional
        script = script.replace('rec peer $F ran "peer-$F.tap" $prc', 'rec peer $F ran "peer-$F.tap" $prc extra')
        self.assertTrue(any("peer record with 5 fields" in p for p in records.check_workload(script)))

    def test_every_committed_results_folder_fits_the_schema(self):
        for tsv in sorted(glob.glob(os.path.join(LAB, "results", "*", "results.tsv"))):
            with self.subTest(results=os.path.basename(os.path.dirname(tsv))):
                with open(tsv, encoding="utf-8", errors="replace") as f:
                    self.assertEqual([], records.parse(f).warnings)

    def test_fields_are_read_by_name_with_defaults_for_older_records(self):
        recs = records.parse(["run\ttcp\tseqread\t1\tfio/tcp-seqread-1.json\t0\t10.5\t30.5\t1\t2\t3\t4\t5\n",
                              "\n", "server\ttcp\tavailable\n"])
        run = recs.of("run")[0]
        self.assertEqual(("tcp", "seqread", "5", ""), (run.key, run.job, run.gc, run.sys))
        self.assertEqual("", recs.of("server")[0].detail)
        self.assertEqual([], recs.warnings)


class RoundOrder(unittest.TestCase):
    """The workload's round_order, run by bash from the script itself."""

    @staticmethod
    def rows(n, rounds):
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            fn = re.search(r"(?ms)^round_order\(\) \{.*?^\}$", f.read()).group(0)
        script = fn + "\nfor r in $(seq 1 %d); do round_order %d $r; done\n" % (rounds, n)
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
        return [[int(x) for x in line.split()] for line in out.splitlines()]

    def test_every_server_follows_every_other_equally_often_and_rounds_start_apart(self):
        for n in range(1, 7):
            rounds = 2 * n if n % 2 else n
            with self.subTest(servers=n):
                rows = self.rows(n, rounds)
                self.assertEqual(rounds, len(rows))
                for row in rows:
                    self.assertEqual(list(range(n)), sorted(row))
                self.assertEqual(list(range(n)), sorted(row[0] for row in rows[:n]))
                follows = {}
                for row in rows:
                    for a, b in zip(row, row[1:]):
                        follows[(a, b)] = follows.get((a, b), 0) + 1
                self.assertEqual(n * (n - 1), len(follows))
                if follows:  # one server follows nobody
                    self.assertEqual({2 if n % 2 else 1}, set(follows.values()))

    def test_the_lab_three_rounds_of_four_servers_put_neither_strategy_always_first(self):
        # knfsd, tcp, lkey, frmr on the first fabric: lkey right before frmr once, right after once
        rows = self.rows(4, 3)
        pairs = [(r[i], r[i + 1]) for r in rows for i in range(3)]
        self.assertEqual(1, pairs.count((2, 3)))
        self.assertEqual(1, pairs.count((3, 2)))


class JitReruns(unittest.TestCase):
    """The workload's fio_run, run by bash from the script itself with fio, the clock and the CPU
    snapshots stubbed: a measured run of our JVM during which the compilers used 5 % of a vCPU or
    more is recorded as unsettled and run again, at most JIT_RERUNS times."""

    @staticmethod
    def fio_run(jit_ticks, kind="jvm", reruns=2):
        """results.tsv's records after one fio_run; jit_ticks: the compilers' ticks in each
        successive 10 s window (fio runs and jit_quiet's waits alike, in the order they come)."""
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            text = f.read()
        fns = "\n".join(re.search(r"(?ms)^%s\(\) \{.*?^\}$" % n, text).group(0)
                        for n in ("cpu_delta", "jit_pct", "jit_unsettled", "jit_quiet", "fio_run"))
        settled = re.search(r"(?m)^JIT_SETTLED_PCT=.*$", text).group(0)
        with tempfile.TemporaryDirectory() as tmp:
            snaps, total = ["0 0 0 0"], 0
            for t in jit_ticks:
                total += t
                snaps.append("0 0 0 %d" % total)
            with open(os.path.join(tmp, "snaps"), "w", encoding="utf-8") as f:
                # each window reads two snapshots: its start (the last one's end) and its end
                f.write("\n".join(s for pair in zip(snaps, snaps[1:]) for s in pair) + "\n")
            script = """
T=%s; R=$T; RES=$T/results.tsv; CLK_TCK=100; FIO_RUNTIME=15; FIO_COMMON=; MNT=$T; SRV_KIND=%s; JIT_RERUNS=%d
echo 0 > $T/i; echo 0 > $T/e
rec() { local IFS=$'\\t'; echo "$*" >> $RES; }
check() { echo "check $*"; }
nfs_mounted() { return 0; }
job_opts() { :; }
timeout() { shift 3; "$@"; }
fio() { :; }
sleep() { :; }
epoch() { local n; n=$(cat $T/e); echo $((n + 10)) > $T/e; echo $n; }
cpu_snap() { local i; i=$(cat $T/i); echo $((i + 1)) > $T/i; sed -n "$((i + 1))p" $T/snaps | tr ' ' '\\t'; }
%s
%s
fio_run lkey.rxe randread 2
cat $RES
""" % (tmp, kind, reruns, settled, fns)
            out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
        return [line.split("\t") for line in out.splitlines() if line.startswith(("run\t", "unsettled\t"))]

    def test_a_run_the_jit_disturbed_is_run_again_once_it_is_quiet(self):
        # 10 % in the first run, 0.1 % in the wait, 0.1 % in the second run
        recs = self.fio_run([100, 1, 1])
        self.assertEqual(["unsettled", "run"], [r[0] for r in recs])
        self.assertEqual(["unsettled", "lkey.rxe", "randread", "2", "1", "0", "10", "10.0"], recs[0])
        run = recs[1]
        self.assertEqual(["lkey.rxe", "randread", "2", "fio/lkey.rxe-randread-2.json", "0"], run[1:6])
        self.assertEqual("1", run[11], "the kept run's own compiler ticks")

    def test_repeats_stop_at_the_bound_and_keep_the_last_attempt(self):
        recs = self.fio_run([100, 1, 100, 1, 70], reruns=2)
        self.assertEqual(["unsettled", "unsettled", "run"], [r[0] for r in recs])
        self.assertEqual(["1", "2"], [r[4] for r in recs[:2]])
        self.assertEqual("70", recs[2][11])

    def test_a_run_under_the_bound_knfsd_and_no_repeats_run_once(self):
        self.assertEqual(["run"], [r[0] for r in self.fio_run([49])])  # 4.9 %
        self.assertEqual(["run"], [r[0] for r in self.fio_run([100], kind="nfsd")])
        self.assertEqual(["run"], [r[0] for r in self.fio_run([100], reruns=0)])

    def test_the_report_counts_runs_under_the_bound_and_the_repeats_per_server(self):
        cpu = lambda jit: ["0", "0", "0", str(jit)] + ["0"] * 7
        lines = ["info\tclk_tck\t100"]
        for key, ticks in (("lkey.rxe", [10, 30, 70]), ("tcp", [20])):
            for i, t in enumerate(ticks):
                lines.append("\t".join(["run", key, "randread", str(i + 1), "f.json", "0", "100", "110"] + cpu(t)))
        lines.append("unsettled\tlkey.rxe\trandread\t3\t1\t80\t90\t12.0")
        lines.append("unsettled\tlkey.rxe\trandread\t3\t2\t90\t100\t9.0")
        lines.append("run\tknfsd.rxe\trandread\t1\tf.json\t0\t100\t110\t" + "\t".join(cpu(90)))
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "results.tsv"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            run = labtool.Run(tmp, {"jit_reruns": "2", "fabrics": "rxe"})
            labtool.runs_jit_lines(run)
            text = "\n".join(run.lines)
            self.assertIn("**3 of 4 runs under it**", text)
            self.assertIn("1 run(s) were repeated, 2 repeat(s) in all", text)
            self.assertIn("| our RDMA lkey/rxe | 3 | 2 | 3.0 % | 7.0 % | 1 | 2 |", text)
            self.assertIn("| our TCP | 1 | 1 | 2.0 % | 2.0 % | 0 | 0 |", text)
            self.assertNotIn("knfsd", text)
            older = labtool.Run(tmp, {"fabrics": "rxe"})
            labtool.runs_jit_lines(older)
            self.assertEqual([], older.lines, "runs made before LAB_JIT_RERUNS get no such section")


class HardwareCounterSnapshot(unittest.TestCase):
    """The workload's hw_snapshot, run by bash from the script itself on a folder laid out as
    /sys/class/infiniband is, with no program on the PATH: it starts no process per counter."""

    def test_every_counter_is_read_without_a_process_each(self):
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            fn = re.search(r"(?ms)^hw_snapshot\(\) \{.*?^\}$", f.read()).group(0)
        with tempfile.TemporaryDirectory() as tmp:
            for dev, counters in (("rxe0", {"sent_pkts": "4500000", "retry_exceeded_err": "0"}), ("siw0", {})):
                d = os.path.join(tmp, "ib", dev, "ports", "1", "hw_counters")
                os.makedirs(d)
                for name, value in counters.items():
                    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                        f.write(value + "\n")
            empty = os.path.join(tmp, "bin")
            os.makedirs(empty)
            out = os.path.join(tmp, "counters.txt")
            script = fn + "\ndate() { echo 1.5; }\nPATH=%s HW_ROOT=%s/ib hw_snapshot %s 'window begins'\n" % (empty, tmp, out)
            subprocess.run(["/bin/bash", "-c", script], check=True, capture_output=True, text=True)
            with open(out, encoding="utf-8") as f:
                lines = f.read().splitlines()
        self.assertEqual(["# window begins 1.5", "rxe0/ports/1/hw_counters/retry_exceeded_err 0",
                          "rxe0/ports/1/hw_counters/sent_pkts 4500000"], lines)


class FlightRecordingSettings(unittest.TestCase):
    def test_runs_that_name_the_lab_settings_say_so_and_older_runs_say_profile(self):
        self.assertEqual("settings=profile", labtool.jfr_settings_text({}, short=True))
        self.assertIn("every 10 ms", labtool.jfr_settings_text({}))
        lab = {"jfr_settings": "lab"}
        self.assertIn("every 20 ms", labtool.jfr_settings_text(lab, short=True))
        self.assertIn("lab_jfc", labtool.jfr_settings_text(lab))

    def test_the_workload_writes_the_settings_it_names_and_records_only_the_events_the_report_reads(self):
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            workload = f.read()
        self.assertIn('rec info jfr_settings "lab"', workload)
        self.assertIn("settings=/tmp/rpcrdma4j-lab.jfc", workload)
        jfc = re.search(r"<<'JFC'\n(.*?)\nJFC\n", workload, re.S).group(1)
        events = set(re.findall(r'<event name="([^"]+)"', jfc))
        # the waits window's settings (lab_waits_jfc): on only while it lasts
        waits = set(re.findall(r'<event name="([^"]+)"', self.waits_jfc(workload)))
        self.assertEqual({"jdk.ThreadPark", "jdk.JavaMonitorEnter"}, waits)
        self.assertFalse(waits & events, "the measured runs must not pay for the waits window's events")
        read = set()
        for tool in ("JfrTop.java", "labtool.py"):
            with open(os.path.join(LAB, tool), encoding="utf-8") as f:
                read |= set(re.findall(r"jdk\.[A-Z][A-Za-z]+", f.read()))
        self.assertEqual(read, events | waits)

    @staticmethod
    def waits_jfc(workload):
        return re.search(r"<<'WAITS'\n(.*?)\nWAITS\n", workload, re.S).group(1)

    PARKER = """import java.util.concurrent.locks.LockSupport;

public class Parker {
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Parker::nap, "rpcrdma4j-worker-7");
        t.start();
        t.join();
    }

    static void nap() {
        for (int i = 0; i < 40; i++) {
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
"""

    def test_the_waits_window_is_read_from_a_recording_and_reported_per_read(self):
        """The workload's waits settings on a JVM that parks 40 times: JfrTop finds the parks in the
        kwaits record's window, and the report puts them per READ by thread and site."""
        with open(os.path.join(LAB, "guest", "workload"), encoding="utf-8") as f:
            jfc = self.waits_jfc(f.read())
        with tempfile.TemporaryDirectory() as tmp:
            rdir = os.path.join(tmp, "results")
            os.makedirs(os.path.join(rdir, "jfr"))
            with open(os.path.join(tmp, "waits.jfc"), "w", encoding="utf-8") as f:
                f.write(jfc)
            with open(os.path.join(tmp, "Parker.java"), "w", encoding="utf-8") as f:
                f.write(self.PARKER)
            t0 = "%.3f" % (time.time() - 1)
            subprocess.run(["java", "-XX:StartFlightRecording=settings=%s,filename=%s" % (
                os.path.join(tmp, "waits.jfc"), os.path.join(rdir, "jfr", "karaf-1.jfr")),
                os.path.join(tmp, "Parker.java")], check=True, capture_output=True, timeout=120)
            t1 = "%.3f" % (time.time() + 1)
            with open(os.path.join(rdir, "results.tsv"), "w", encoding="utf-8") as f:
                f.write("kprof\tlkey.rxe\trandread\tkprof/lkey.rxe-randread.txt\t0\t1000\t100.0\t108.0\n")
                f.write("kwaits\tlkey.rxe\t0\t20\t%s\t%s\n" % (t0, t1))
            os.makedirs(os.path.join(rdir, "kprof"))
            with open(os.path.join(rdir, "kprof", "lkey.rxe-randread.txt"), "w", encoding="utf-8") as f:
                f.write(KernelProfile.FLAT)
            _, md, err = report(rdir, {"phases": "rdma", "fabrics": "rxe"}, tmp)
        self.assertNotIn("labtool:", err)
        section = md.split("## Where a random read's CPU goes, the kernel included (perf)\n", 1)[1].split("\n## ", 1)[0]
        self.assertIn("in a third window of 20 READs", section)
        # 40 parks over 20 READs, the site past LockSupport and Unsafe
        self.assertIn("| 2.00 | rpcrdmaNj-worker-N | park: Parker.nap < Thread.run |", section)

    SPINNER = """package org.rpcrdma4j.labtest;

public class Spinner {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Thread loop = new Thread(() -> spin(true), "rpcrdma4j-rdma-20049-loop-0-1");
        Thread worker = new Thread(() -> spin(false), "rpcrdma4j-worker-12");
        loop.start();
        worker.start();
        loop.join();
        worker.join();
    }

    static void spin(boolean polls) {
        long end = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < end) {
            if (polls) {
                poll();
            } else {
                serve();
            }
        }
    }

    static void poll() {
        for (int i = 0; i < 20000; i++) {
            sink += i;
        }
    }

    static void serve() {
        for (int i = 0; i < 20000; i++) {
            sink ^= i;
        }
    }
}
"""

    def test_each_threads_own_frames_are_counted_apart_and_reported_per_thread(self):
        """The lab's own JFC on a JVM with a loop thread and a worker, each spinning in its own
        method: JfrTop's town lines give each thread its own frames, and the profile section's
        per-thread table puts them beside the thread's share of the samples."""
        # Out of line, as in the test below: once C2 inlines poll into spin, a sample in it may be
        # attributed to spin, the nearest recorded scope (a starved CPU, where spin's own
        # System.nanoTime calls also weigh more, made spin the loop thread's top frame once).
        out = jfrtop_of_program("Spinner", self.SPINNER, ("-XX:CompileCommand=quiet",
                                                          "-XX:CompileCommand=dontinline,org.rpcrdma4j.labtest.*::*"))
        sampled_enough(self, out, ("rpcrdmaNj-rdma-N-loop-N-N", "rpcrdmaNj-worker-N"))
        town = [line.split("\t") for line in out.splitlines() if line.startswith("town\t")]
        top = {}
        for _, lbl, thread, count, frame in town:
            self.assertEqual("lkey.rxe/randread", lbl)
            top.setdefault(thread, (int(count), frame))
        self.assertEqual("Spinner.poll", top["rpcrdmaNj-rdma-N-loop-N-N"][1])
        self.assertEqual("Spinner.serve", top["rpcrdmaNj-worker-N"][1])
        # the report's table, from those lines as labtool reads them
        jfr = {"lkey.rxe/randread": {"samples": 100, "thread": [(60, "rpcrdmaNj-rdma-N-loop-N-N"), (40, "rpcrdmaNj-worker-N")],
                                     "town": {"rpcrdmaNj-worker-N": [(30, "Spinner.serve"), (10, "(no own frame)")],
                                              "rpcrdmaNj-rdma-N-loop-N-N": [(45, "Spinner.poll"), (15, "Xdr.intAt")]}}}
        lines = []
        labtool.thread_table(lines.append, "lkey.rxe", jfr)
        self.assertEqual("| rand. read 4 KiB, QD32 | rpcrdmaNj-rdma-N-loop-N-N | 60 % | Spinner.poll 75 %<br>Xdr.intAt 25 % |", lines[-2])
        self.assertEqual("| rand. read 4 KiB, QD32 | rpcrdmaNj-worker-N | 40 % | Spinner.serve 75 %<br>(no own frame) 25 % |", lines[-1])
        no_town = {"lkey.rxe/randread": {"samples": 1, "thread": [(1, "x")]}}
        lines = []
        labtool.thread_table(lines.append, "lkey.rxe", no_town)
        self.assertEqual([], lines)

    SERVED = """package org.dcache.oncrpc4j.rpc;

// A worker serving calls as the lab's server does, in the classes and methods JfrTop looks for:
// the program's dispatchOncRpcCall does its own work, then answers through RpcCall.reply (the
// transport's reply path); a loop thread polls outside both.
public class Served {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + 3_000_000_000L;
        Thread loop = new Thread(() -> { while (System.nanoTime() < end) { burn(1000); } }, "rpcrdma4j-rdma-20049-loop-0-1");
        Thread worker = new Thread(() -> { while (System.nanoTime() < end) { new Program().dispatchOncRpcCall(new RpcCall()); } },
                "rpcrdma4j-worker-1");
        loop.start();
        worker.start();
        loop.join();
        worker.join();
    }

    static void burn(int n) {
        for (int i = 0; i < n; i++) {
            sink += i;
        }
    }
}

class Program {
    void dispatchOncRpcCall(RpcCall call) {
        Served.burn(4000);
        call.reply();
    }
}

class RpcCall {
    void reply() {
        Served.burn(1000);
    }
}
"""

    def test_cpu_samples_are_split_by_what_they_served_and_the_programs_floor_reported(self):
        """The lab's own JFC on a JVM whose worker runs a program that answers through RpcCall.reply
        and whose loop thread polls: JfrTop's part lines count the program's own work, the reply
        path and the rest apart, and the profile section's table gives the program's user CPU per
        operation against our TCP's."""
        # Its methods are kept out of line: a sample in code C2 inlined is attributed to the
        # nearest recorded scope, which may be the caller's (a CI run saw 18 program to 20 reply
        # samples for a 3:1 split of 1.5 s; now 4:1 over 3 s), and this test is about the
        # markers, not the JIT.
        out = jfrtop_of_program("Served", self.SERVED, ("-XX:CompileCommand=quiet",
                                                        "-XX:CompileCommand=dontinline,org.dcache.oncrpc4j.rpc.*::*"))
        sampled_enough(self, out, ("rpcrdmaNj-rdma-N-loop-N-N", "rpcrdmaNj-worker-N"))
        parts = dict((f[3], int(f[2])) for f in (line.split("\t") for line in out.splitlines()) if f[0] == "part")
        # the worker: four parts program to one part reply; the loop thread: all rest
        self.assertGreater(parts.get("program", 0), parts.get("reply", 0))
        self.assertGreater(parts.get("reply", 0), 0)
        self.assertGreater(parts.get("rest", 0), 0)
        # (the source launcher's javac runs in the window too, its deep stacks may come out cut)
        # the report's table, from such lines as labtool reads them
        jfr = {"lkey.rxe/randread": {"samples": 100, "part": [(50, "rest"), (40, "program"), (10, "reply")]},
               "tcp/randread": {"samples": 200, "part": [(120, "rest"), (60, "program"), (20, "reply")]}}
        med = {("lkey.rxe", "randread"): {"u_kop": 0.30}, ("tcp", "randread"): {"u_kop": 0.20}}
        lines = []
        labtool.parts_table(lines.append, ["tcp", "lkey.rxe"], jfr, med)
        rows = [x for x in lines if x.startswith("| rand. read")]
        # TCP: 30 % of 0.20 = 0.06 s, 0.30x its own; lkey: 40 % of 0.30 = 0.12 s, 0.60x TCP's 0.20
        self.assertEqual("| rand. read 4 KiB, QD32 | our TCP | 30 % | 10 % | 60 % | 0 % | 0.06 | 0.30× |", rows[0])
        self.assertEqual("| rand. read 4 KiB, QD32 | our RDMA lkey/rxe | 40 % | 10 % | 50 % | 0 % | 0.12 | 0.60× |", rows[1])
        lines = []
        labtool.parts_table(lines.append, ["tcp"], {"tcp/randread": {"samples": 1}}, med)
        self.assertEqual([], lines)

    def test_a_failed_waits_window_says_so(self):
        md = LatencyTable.report_with(self, [
            "kprof\tlkey.rxe\trandread\tkprof/lkey.rxe-randread.txt\t0\t1000\t100.0\t108.0",
            "kwaits\tlkey.rxe\t1\t0"], {"kprof/lkey.rxe-randread.txt": KernelProfile.FLAT})
        self.assertIn("Where its threads waited: not recorded (jcmd JFR.start exit 1, 0 READs, 0 sites in the recording).", md)


class MalformedLines(unittest.TestCase):
    def test_a_malformed_line_is_warned_about_by_number_and_the_report_is_written(self):
        lines = ["info\tclk_tck\t100",
                 "bogus\tsomething",  # line 2: an unknown kind
                 "server\ttcp\tavailable\tNFSv3 over TCP",
                 "check\ttcp",  # line 4: too few fields
                 "check\ttcp\tfile-0\tok\tmd5 x\tone too many",  # line 5
                 "run\ttcp\tseqread\t1\tfio/none.json\t0\tnot-a-time\t\tx",
                 "fio\tknfsd\tseqwrite\tfio/knfsd-seqwrite.json\t0"]  # a retired kind: no warning
        with tempfile.TemporaryDirectory() as tmp:
            rdir = os.path.join(tmp, "results")
            os.makedirs(rdir)
            with open(os.path.join(rdir, "results.tsv"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            status, md, err = report(rdir, {"phases": "tcp", "fabrics": "rxe"}, tmp)
        self.assertIn("line 2: unknown record kind 'bogus'", err)
        self.assertIn("line 4: check record with 1 fields after its kind, at least 3 expected", err)
        self.assertIn("line 5: check record with 5 fields after its kind, at most 4 expected", err)
        self.assertNotIn("line 7", err)
        self.assertNotIn("line 1:", err)
        self.assertIn("| our TCP | 1 of 1 | none |", md)
        self.assertIn("## Verdict", md)
        self.assertEqual(1, status)  # fio without a result for tcp


class LatencyTable(unittest.TestCase):
    """Per-connection reply latency from the `rpcrdma:connections -v` listing a latency record names."""

    LISTING = ("rdma-20049 (disni, 192.168.77.1:20049)\r\n"
               "\x1b[1mRemote address\x1b[0m | Local address | State\r\n"
               "192.168.77.1:40001 | 192.168.77.1:20049 | open\r\n"
               "\r\n"
               "192.168.77.1:40001 (open)\r\n"
               "back channel: off\r\n"
               "reply latency (receive to reply SEND, µs, bucket upper bounds): count 81234, p50 136, p90 272, "
               "p99 992, p99.9 4352, max 67584\r\n"
               "Counter | Value\r\n"
               "SENDS   | 81234\r\n"
               "\r\n"
               "192.168.77.1:40002 (closing)\r\n"
               "back channel: off\r\n"
               "reply latency (receive to reply SEND, µs, bucket upper bounds): count 0\r\n")

    def report_with(self, tsv_lines, files):
        with tempfile.TemporaryDirectory() as tmp:
            rdir = os.path.join(tmp, "results")
            os.makedirs(rdir)
            with open(os.path.join(rdir, "results.tsv"), "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in tsv_lines))
            for name, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(rdir, name)), exist_ok=True)
                with open(os.path.join(rdir, name), "w", encoding="utf-8") as f:
                    f.write(text)
            _, md, err = report(rdir, {"phases": "rdma", "fabrics": "rxe"}, tmp)
        self.assertNotIn("labtool:", err)
        return md

    def test_each_connection_gets_a_row_with_count_p50_p99_and_max(self):
        self.assertEqual([("192.168.77.1:40001", "81234", "136", "272", "992", "4352", "67584"),
                          ("192.168.77.1:40002", "0", "", "", "", "", "")], labtool.latency_rows(self.LISTING))
        md = self.report_with(["latency\trdma.rxe\tconnections-rdma.rxe.txt",
                               "latency\tnfs4.rdma.siw\tconnections-nfs4.rdma.siw.txt"],
                              {"connections-rdma.rxe.txt": self.LISTING})
        section = md.split("## Per-connection latency (receive to reply SEND)\n", 1)[1].split("\n## ", 1)[0]
        rows = [line for line in section.split("\n") if line.startswith("| ")]
        self.assertEqual(["| server | connection | replies | p50 µs | p99 µs | max µs |",
                          "| our RDMA/rxe | 192.168.77.1:40001 | 81234 | 136 | 992 | 67584 |",
                          "| our RDMA/rxe | 192.168.77.1:40002 | 0 | — | — | — |",
                          "| nfs4j NFSv4.1 RDMA/siw | (no output: connections-nfs4.rdma.siw.txt) | | | | |"], rows)

    def test_a_listing_without_latency_lines_says_so_and_no_record_means_no_section(self):
        md = self.report_with(["latency\trdma.rxe\told.txt"], {"old.txt": "192.168.77.1:40001 (open)\nback channel: off\n"})
        self.assertIn("| our RDMA/rxe | (no reply latency in old.txt) | | | | |", md)
        self.assertNotIn("Per-connection latency", self.report_with(["info\tclk_tck\t100"], {}))


class KernelProfile(unittest.TestCase):
    """The profiled random-read job: perf report's flat table and perf trace's summary, per READ."""

    FLAT = ("# To display the perf.data header info, please use --header/--header-only options.\n"
            "#\n# Total Lost Samples: 0\n#\n"
            "# Samples: 3K of event 'cpu-clock:ppp'\n"
            "# Event count (approx.): 16000000000\n#\n"
            "# Overhead  Command          Shared Object      Symbol\n"
            "# ........  ...............  .................  ..........................\n#\n"
            "    50.00%  swapper          [kernel.kallsyms]  [k] default_idle\n"
            "    20.00%  rpcrdma4j-loop-  [kernel.kallsyms]  [k] crc32_le\n"
            "    10.00%  rpcrdma4j-nfs-1  [unknown]          [.] 0x00007f0000001234\n"
            "     5.00%  rpcrdma4j-nfs-2  [kernel.kallsyms]  [k] __x64_sys_futex\n"
            "     5.00%  C2 CompilerThre  libjvm.so          [.] PhaseIdealLoop::build_loop_tree\n"
            "\n#\n# (Tip: see the callers with -G)\n#\n")
    TRACE = ("1000\trpcrdma4j-loop-\t1\n"
             "500\trpcrdma4j-loop-\t202\n"
             "300\trpcrdma4j-nfs-1\t202\n"
             "100\trpcrdma4j-nfs-1\t17\n"
             "7\tsleep\t35\n"
             "perf: a line that is no count\n")

    def test_flat_rows_are_cut_by_the_header_and_keep_thread_names_with_spaces(self):
        rows, total = labtool.perf_flat_rows(self.FLAT)
        self.assertEqual(16000000000, total)
        self.assertEqual(("C2 CompilerThre", "libjvm.so", "[.] PhaseIdealLoop::build_loop_tree", 0.05), rows[-1])
        self.assertEqual(("rpcrdma4j-loop-", "[kernel.kallsyms]", "[k] crc32_le", 0.2), rows[1])

    def test_per_read_figures_leave_idle_out_and_group_numbered_threads(self):
        md = LatencyTable.report_with(self, [
            "kprof\tlkey.rxe\trandread\tkprof/lkey.rxe-randread.txt\t0\t1000\t100.0\t108.0"
            "\tkprof/lkey.rxe-randread-syscalls.txt\t0\t500\t116.0"],
            {"kprof/lkey.rxe-randread.txt": self.FLAT, "kprof/lkey.rxe-randread-syscalls.txt": self.TRACE})
        section = md.split("## Where a random read's CPU goes, the kernel included (perf)\n", 1)[1].split("\n## ", 1)[0]
        # 16 s of CPU sampled over 1000 READs: 16,000 µs per READ for a share of 1.0; idle's 50 % left out
        self.assertIn("1000 READs in 8.0 s; busy CPU per READ 6400 µs (kernel 4000 µs", section)
        self.assertIn("| rpcrdma4j-loop- | 3200 | 0 |", section)
        self.assertIn("| rpcrdma4j-nfs-* | 800 | 1600 |", section)
        self.assertNotIn("| swapper", section)
        self.assertIn("| rpcrdma4j-loop- | [kernel.kallsyms] | `[k] crc32_le` | 20.0 % | 3200.0 |", section)
        self.assertIn("| write | 2.00 | rpcrdma4j-loop- 2.00 |", section)
        self.assertIn("| futex | 1.60 | rpcrdma4j-loop- 1.00, rpcrdma4j-nfs-* 0.60 |", section)

    DSO = ("# Event count (approx.): 16000000000\n#\n"
           "# Overhead  Command          Shared Object\n"
           "# ........  ...............  .................\n#\n"
           "    40.00%  swapper          [kernel.kallsyms]\n"
           "    30.00%  rpcrdma4j-loop-  [kernel.kallsyms]\n"
           "    12.00%  rpcrdma4j-nfs-1  [JIT] tid 812\n"
           "     4.00%  rpcrdma4j-nfs-1  libjvm.so\n"
           "     2.00%  rpcrdma4j-nfs-2  libc.so.6\n"
           "     1.00%  rpcrdma4j-nfs-2  libdisni.so.0.0.0\n"
           "     0.50%  rpcrdma4j-nfs-2  librxe-rdmav34.so\n"
           "     0.50%  rpcrdma4j-nfs-1  libnio.so\n"
           "     5.00%  rpcrdma4j-nfs-2  [kernel.kallsyms]\n"
           "     5.00%  rpcrdma4j-nfs-2  [rdma_rxe]\n")

    def lkey_report(self, more=None):
        """The report of one profiled lkey job with its flat and thread-and-object tables (and {file: text} more)."""
        files = {"kprof/lkey.rxe-randread.txt": self.FLAT, "kprof/lkey.rxe-randread-dso.txt": self.DSO}
        files.update(more or {})
        return LatencyTable.report_with(self, [
            "kprof\tlkey.rxe\trandread\tkprof/lkey.rxe-randread.txt\t0\t1000\t100.0\t108.0"], files)

    def test_totals_and_threads_come_from_the_thread_and_object_table_when_there_is_one(self):
        md = self.lkey_report()
        self.assertIn("busy CPU per READ 9600 µs (kernel 6400 µs, the rest user mode).", md)
        self.assertIn("| rpcrdma4j-loop- | 4800 | 0 |", md)
        # user mode split by object: JIT 12 %, libjvm 4 %, libc 2 %, verbs 1.5 %, libnio 0.5 % of 16,000 µs
        self.assertIn("| rpcrdma4j-nfs-* | 1600 | 3200 | 1920 | 640 | 320 | 240 | 80 |", md)
        self.assertIn("| threads | kernel µs/READ | user µs/READ | JIT code | libjvm | libc | verbs | other |\n"
                      "|---|---:|---:|---:|---:|---:|---:|---:|\n", md)
        # the symbols still from the symbol table
        self.assertIn("| rpcrdma4j-loop- | [kernel.kallsyms] | `[k] crc32_le` | 20.0 % | 3200.0 |", md)

    ENTRIES = ("# Event count (approx.): 16000000000\n#\n"
               "# Children      Self  Command          Symbol\n"
               "# ........  ........  ...............  ..................................\n#\n"
               "    25.00%     0.10%  rpcrdma4j-loop-  [k] do_syscall_64\n"
               "    15.00%     0.00%  rpcrdma4j-loop-  [k] __x64_sys_write\n"
               "    14.00%     0.20%  rpcrdma4j-loop-  [k] ksys_write\n"
               "     5.00%     0.00%  rpcrdma4j-loop-  [k] __x64_sys_futex\n"
               "     3.00%     0.00%  rpcrdma4j-loop-  [k] asm_sysvec_reschedule_ipi\n"
               "     2.00%     0.00%  rpcrdma4j-nfs-1  [k] do_syscall_64\n"
               "     2.00%     0.00%  rpcrdma4j-nfs-1  [k] __x64_sys_futex\n"
               "     1.00%     0.00%  rpcrdma4j-nfs-2  [k] do_syscall_64\n"
               "     1.00%     0.00%  rpcrdma4j-nfs-2  [k] __x64_sys_futex\n"
               "     4.00%     0.00%  ksoftirqd/0      [k] run_ksoftirqd\n"
               "     1.00%     0.00%  sleep            [k] do_syscall_64\n"
               "    20.00%    20.00%  swapper          [k] default_idle\n")

    def test_kernel_time_by_entry_per_thread_group_against_its_kernel_time(self):
        md = self.lkey_report({"kprof/lkey.rxe-randread-entries.txt": self.ENTRIES})
        # 16,000 µs per READ for a share of 1.0; the loop's kernel time is 30 % (4800 µs) in the DSO table
        self.assertIn("| rpcrdma4j-loop- | write() | 2400 | 50 % |", md)
        # write()'s two frames (wrapper and ksys_write) count once; do_syscall_64 25 % less its calls' 20 %
        self.assertIn("| rpcrdma4j-loop- | system call entry and exit (rescheduling, signals) | 800 | 17 % |", md)
        self.assertIn("| rpcrdma4j-loop- | reschedule interrupt (another CPU woke a thread here) | 480 | 10 % |", md)
        # numbered threads grouped: 3 % of 16,000 µs; the group's kernel time 10 % (nfs-2's 5 % + [rdma_rxe] 5 %)
        self.assertIn("| rpcrdma4j-nfs-* | futex() | 480 | 30 % |", md)
        # kernel threads (no system calls) and perf's window commands are not rows
        self.assertNotIn("ksoftirqd", md.split("by where they entered the kernel", 1)[1].split("\n\n", 2)[1])
        self.assertNotIn("| sleep |", md)

    def test_no_entries_file_means_no_entries_table(self):
        md = self.lkey_report()
        self.assertIn("busy CPU per READ", md)
        self.assertNotIn("by where they entered the kernel", md)

    def test_a_failed_profile_says_so_and_no_record_means_no_section(self):
        md = LatencyTable.report_with(self, ["kprof\tknfsd.rxe\trandread\tkprof/knfsd.rxe-randread.txt\t1\t0\t1\t2"],
                                      {"kprof/knfsd.rxe-randread.txt": "perf: not found\n"})
        self.assertIn("knfsd/rxe: no profile (perf exit 1, 0 READ calls; kprof/knfsd.rxe-randread.txt).", md)
        self.assertNotIn("perf)", LatencyTable.report_with(self, ["info\tclk_tck\t100"], {}))


class HandOffPerCall(unittest.TestCase):
    """`rpcrdma:transports -v`: the loops' and the workers' costs per call delivered."""

    LISTING = ("Host server calls: 1000 dispatched, 0 failed (0 program Errors), 0 malformed RPC headers refused, 0 "
               "refused over the per-connection queue bound; workers woken 450 times.\r\n\r\n"
               "rdma: every counter that is not zero, since the transport started\r\n"
               "Counter                    |  Value\r\n"
               "---------------------------+-------\r\n"
               "CALLS_DELIVERED            |   1000\r\n"
               "SEND_POSTS                 |   1000\r\n"
               "COMPLETIONS                |   2500\r\n"
               "CALLS_RUN_ON_LOOP          |    600\r\n"
               "KEPT_CALLS_SENT_TO_WORKERS |    100\r\n"
               "LOOP_SLEEPS                |    250\r\n")

    def test_per_call_figures_and_the_workers_wakeups_per_call_handed_to_them(self):
        line = labtool.hand_off_per_call(self.LISTING)
        self.assertIn("(1000 calls, every workload and strategy of the run): completion-loop sleeps 0.25, calls run on a "
                      "loop thread 0.60 (of them sent to the workers after all 0.10), SEND posts 1.00, completions 2.50", line)
        # handed to the workers: 1000 - 600 + 100 = 500
        self.assertIn("woken 0.90 times per call they were handed (450 wake-ups, 1000 calls dispatched", line)
        self.assertNotIn("blocked", line, "a listing from before the running-workers target")

    def test_with_a_listing_after_the_measured_rounds_only_it_is_put_per_call(self):
        later = self.LISTING.replace("CALLS_DELIVERED            |   1000", "CALLS_DELIVERED            |     10")
        md = LatencyTable.report_with(self, ["transports\trxe.rounds\ttransports-rounds-rxe.txt",
                                             "transports\trxe\ttransports-rxe.txt"],
                                      {"transports-rounds-rxe.txt": self.LISTING, "transports-rxe.txt": later})
        self.assertIn("rxe, after the measured rounds (the counters the figures below are per call of):", md)
        self.assertIn("rxe (Karaf 4.4.10 `bin/client` under `script`'s pseudo-terminal):", md)
        self.assertEqual(1, md.count("Per call delivered over RDMA"), md)
        self.assertIn("Per call delivered over RDMA (1000 calls,", md)

    def test_the_workers_added_beside_blocked_calls_when_the_listing_counts_them(self):
        listing = self.LISTING.replace("workers woken 450 times.", "workers woken 450 times, 7 added beside blocked calls.")
        line = labtool.hand_off_per_call(listing)
        self.assertIn("(450 wake-ups, 1000 calls dispatched, less those run on a loop thread); 7 workers were added "
                      "beside calls taken for blocked.", line)

    def test_posts_and_completions_per_send_when_the_listing_counts_completions_by_kind(self):
        listing = self.LISTING.replace("COMPLETIONS                |   2500\r\n",
                                       "COMPLETIONS                |   2500\r\n"
                                       "SENDS                      |   1000\r\n"
                                       "REPLIES_INLINE             |    990\r\n"
                                       "REPLIES_WRITE_CHUNK        |    600\r\n"
                                       "REPLIES_REPLY_CHUNK        |     10\r\n"
                                       "READ_POSTS                 |    200\r\n"
                                       "SEND_COMPLETIONS           |   1000\r\n"
                                       "WRITE_COMPLETIONS          |      3\r\n")
        listing = listing.replace("SEND_POSTS                 |   1000", "SEND_POSTS                 |   1200")
        line = labtool.hand_off_per_call(listing)
        self.assertIn("Per SEND (1000: 990 replies inline, 600 of them with a write chunk, 10 through a reply chunk, the "
                      "rest backward calls): send-queue posts 1.00 (SEND_POSTS less the READ chains' 200), send-side "
                      "completions 1.00 (the SENDs' own 1000, the RDMA WRITEs' own 3)", line)
        self.assertNotIn("Per SEND", labtool.hand_off_per_call(self.LISTING), "listings before the counters say nothing")

    def test_the_calls_with_a_kept_credential_when_the_listing_counts_them(self):
        listing = self.LISTING.replace("workers woken 450 times.",
                                       "workers woken 450 times; 990 with a kept AUTH_SYS credential.")
        line = labtool.hand_off_per_call(listing)
        self.assertIn("(450 wake-ups, 1000 calls dispatched, less those run on a loop thread); 0.99 of the calls "
                      "dispatched came with a kept AUTH_SYS credential (no decoding).", line)
        self.assertNotIn("kept AUTH_SYS", labtool.hand_off_per_call(self.LISTING), "older listings say nothing of it")

    def test_a_listing_without_counters_gives_nothing(self):
        self.assertIsNone(labtool.hand_off_per_call("Host server calls: 5 dispatched, 0 failed (0 program Errors), 0 "
                                                    "malformed RPC headers refused, 0 refused over the per-connection "
                                                    "queue bound."))


class ParallelTable(unittest.TestCase):
    """The parallel mounts: connections listed, IOPS per mount and p99 per connection as min and max."""

    @staticmethod
    def listing(*conns):
        return "".join("%s (open)\r\nback channel: off\r\nreply latency (receive to reply SEND, µs, bucket upper "
                       "bounds): count %s%s\r\n" % (c, n, ", p50 100, p90 200, p99 %s, p99.9 900, max 1000" % p if p else "")
                       for c, n, p in conns)

    @staticmethod
    def fio(iops):
        return json.dumps({"jobs": [{"read": {"bw_bytes": iops * 4096, "iops": iops, "io_bytes": 1, "total_ios": 1,
                                              "clat_ns": {"percentile": {"50.000000": 1000, "99.000000": 2000}}},
                                     "write": {"io_bytes": 0, "total_ios": 0}}]})

    def test_connections_iops_and_p99_ranges_per_fabric_and_the_connections_in_the_latency_table(self):
        files = {"connections-parallel.rxe.txt": self.listing(("192.168.77.11:40001", 5000, "544"),
                                                              ("192.168.77.12:40002", 7000, ">67108864"),
                                                              ("192.168.77.13:40003", 6000, "1984")),
                 "connections-parallel.siw.txt": self.listing(("192.168.78.11:40001", 0, None),
                                                              ("192.168.78.11:40002", 4000, "3968")),
                 "fio/parallel.rxe-1.json": self.fio(1500.4), "fio/parallel.rxe-2.json": self.fio(2100.6),
                 "fio/parallel.rxe-3.json": self.fio(1800), "fio/parallel.siw-1.json": self.fio(900)}
        tsv = ["pjob\tparallel.rxe\t1\t192.168.77.11\tfio/parallel.rxe-1.json\t0",
               "pjob\tparallel.rxe\t2\t192.168.77.12\tfio/parallel.rxe-2.json\t0",
               "pjob\tparallel.rxe\t3\t192.168.77.13\tfio/parallel.rxe-3.json\t0",
               "latency\tparallel.rxe\tconnections-parallel.rxe.txt",
               "parallel\tparallel.rxe\t3\t3\t3\tconnections-parallel.rxe.txt",
               "pjob\tparallel.siw\t1\t192.168.78.11\tfio/parallel.siw-1.json\t0",
               "pjob\tparallel.siw\t2\t192.168.78.12\tfio/parallel.siw-2.json\t1",
               "latency\tparallel.siw\tconnections-parallel.siw.txt",
               "parallel\tparallel.siw\t2\t2\t2\tconnections-parallel.siw.txt"]
        md = LatencyTable.report_with(self, tsv, files)
        section = md.split("## Per-connection latency (receive to reply SEND)\n", 1)[1].split("\n## ", 1)[0]
        rows = [line for line in section.split("\n") if line.startswith("| ")]
        self.assertIn("| our RDMA, parallel mounts/rxe | 192.168.77.12:40002 | 7000 | 100 | >67108864 | 1000 |", rows)
        self.assertEqual(["| server | mounts | connections (from the mounts) | IOPS per mount min | max "
                          "| p99 µs per connection min | max |",
                          "| our RDMA, parallel mounts/rxe | 3 | 3 (3) | 1500 | 2101 | 544 | >67108864 |",
                          "| our RDMA, parallel mounts/siw | 2 | 2 (2) | 900 (1 of 2 jobs failed) | 900 | 3968 | 3968 |"],
                         rows[rows.index("| server | mounts | connections (from the mounts) | IOPS per mount min | max "
                                         "| p99 µs per connection min | max |"):])

    def test_no_parallel_record_means_no_parallel_table(self):
        md = LatencyTable.report_with(self, ["latency\trdma.rxe\tc.txt"],
                                      {"c.txt": self.listing(("192.168.77.1:40001", 3, "99"))})
        self.assertIn("| our RDMA/rxe | 192.168.77.1:40001 | 3 | 100 | 99 | 1000 |", md)
        self.assertNotIn("Parallel mounts", md)


class UserCpu(unittest.TestCase):
    """The user-mode CPU per operation of our JVM (issue #33's bar against our TCP server)."""

    @staticmethod
    def one_run(ops, server, sys, jit, jfr, puser, jituser):
        return {"mbs": 1.0, "iops": 1.0, "p50": 1.0, "p99": 1.0, "bytes": ops * 4096, "ops": ops, "secs": 20.0,
                "gbusy": 30.0, "gall": 40.0, "srv": server, "jit": jit, "gc": 0.0, "sys": sys, "jfr": jfr,
                "puser": puser, "jituser": jituser}

    def test_user_time_is_the_threads_user_time_less_the_compilers(self):
        m = labtool.job_medians([self.one_run(1000, 10.0, 4.0, 1.0, 0.5, 7.0, 0.9)])
        self.assertAlmostEqual(10.0 - 4.0 - 0.9, m["u_kop"])
        self.assertAlmostEqual(4.0 - (1.0 - 0.9), m["k_kop"])

    def test_records_without_the_compilers_user_time_give_no_user_figure_and_no_section(self):
        m = labtool.job_medians([self.one_run(1000, 10.0, 4.0, 1.0, 0.5, None, None)])
        self.assertIsNone(m["u_kop"])
        lines = []
        run = type("R", (), {"w": lines.append})()
        labtool.user_cpu_section(run, "rxe", ["tcp", "lkey.rxe"], {("tcp", "randread"): m, ("lkey.rxe", "randread"): m},
                                 "tcp", "our TCP")
        self.assertEqual([], lines)

    def test_rdma_rows_carry_their_ratio_to_tcp(self):
        tcp = labtool.job_medians([self.one_run(1000, 10.0, 4.0, 0.0, 0.0, 6.0, 0.0)])
        rdma = labtool.job_medians([self.one_run(1000, 5.0, 2.0, 0.0, 0.0, 3.0, 0.0)])
        # user: 10 - 4 = 6 and 5 - 2 = 3 s per 1,000 operations
        lines = []
        run = type("R", (), {"w": lines.append})()
        labtool.user_cpu_section(run, "rxe", ["knfsd.rxe", "tcp", "lkey.rxe"],
                                 {("tcp", "randread"): tcp, ("lkey.rxe", "randread"): rdma}, "tcp", "our TCP")
        self.assertIn("| rand. read 4 KiB, QD32 | our TCP | 6.00 | 1464.8 | 4.00 |  |", lines)
        self.assertIn("| rand. read 4 KiB, QD32 | our RDMA lkey/rxe | 3.00 | 732.4 | 2.00 | 0.50× |", lines)
        self.assertFalse(any("knfsd" in line for line in lines))


class SameRoundBaselines(unittest.TestCase):
    """knfsd and our TCP measured in our RDMA server's rounds: the soft device's counters per server's blocks."""

    COUNTERS = """# measured rounds begin 1.0
rxe0/ports/1/hw_counters/sent_pkts 50
# knfsd.rxe round 1 begins 2.0
rxe0/ports/1/hw_counters/sent_pkts 100
rxe0/ports/1/hw_counters/completer_retry_err 5
# knfsd.rxe round 1 ends 3.0
rxe0/ports/1/hw_counters/sent_pkts 1100
rxe0/ports/1/hw_counters/completer_retry_err 7
# lkey.rxe round 1 begins 4.0
rxe0/ports/1/hw_counters/sent_pkts 1200
rxe0/ports/1/hw_counters/completer_retry_err 7
siw0/ports/1/hw_counters/sent_pkts 0
# lkey.rxe round 1 ends 5.0
rxe0/ports/1/hw_counters/sent_pkts 3200
rxe0/ports/1/hw_counters/completer_retry_err 7
siw0/ports/1/hw_counters/sent_pkts 999
# knfsd.rxe round 2 begins 6.0
rxe0/ports/1/hw_counters/sent_pkts 4000
rxe0/ports/1/hw_counters/completer_retry_err 10
# knfsd.rxe round 2 ends 7.0
rxe0/ports/1/hw_counters/sent_pkts 5000
rxe0/ports/1/hw_counters/completer_retry_err 14
# frmr.rxe round 2 begins 8.0
rxe0/ports/1/hw_counters/sent_pkts 5000
# measured rounds end 9.0
rxe0/ports/1/hw_counters/sent_pkts 9000
"""

    def test_each_servers_blocks_are_summed_apart_and_other_devices_and_open_blocks_left_out(self):
        sums = labtool.hw_blocks(self.COUNTERS, "rxe0")
        self.assertEqual({"sent_pkts": 2000, "completer_retry_err": 6}, dict(sums["knfsd.rxe"]))
        self.assertEqual({"sent_pkts": 2000, "completer_retry_err": 0}, dict(sums["lkey.rxe"]))
        self.assertNotIn("frmr.rxe", sums)  # its block never ended

    def test_the_table_puts_retries_per_million_packets_and_siw_gets_none(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "hwcounters-rdma.rxe.txt"), "w") as f:
                f.write(self.COUNTERS)
            lines = []
            run = type("R", (), {"w": lines.append, "path": lambda self, n: os.path.join(d, n)})()
            labtool.device_counters_section(run, "rxe", ["knfsd.rxe", "tcp", "lkey.rxe"])
            self.assertIn("| knfsd/rxe | 2,000 | 6 | 0 | 0 | 0 | 0 | 0 | 3000.0 |", lines)
            self.assertIn("| our RDMA lkey/rxe | 2,000 | 0 | 0 | 0 | 0 | 0 | 0 | 0.0 |", lines)
            self.assertFalse(any("our TCP" in line for line in lines))
            lines.clear()
            labtool.device_counters_section(run, "siw", ["knfsd.siw"])
            self.assertEqual([], lines)

    @staticmethod
    def fake_run(rep, mbs, srv=None):
        return {"rep": rep, "mbs": mbs, "ops": 1000, "secs": 20.0, "srv": srv, "sys": 0.0 if srv else None,
                "jituser": 0.0 if srv else None}

    def test_each_round_is_compared_with_the_baselines_run_of_the_same_round(self):
        ours = [self.fake_run("2", 30.0), self.fake_run("1", 10.0), self.fake_run("3", 8.0)]
        knfsd = [self.fake_run("1", 20.0), self.fake_run("2", 20.0)]  # round 3 missing: left out
        self.assertEqual([0.5, 1.5], labtool.paired(ours, knfsd, lambda r: r["mbs"]))
        self.assertEqual("1.00× (0.50–1.50, n=2)", labtool.paired_text([0.5, 1.5]))
        self.assertEqual("—", labtool.paired_text([]))

    def test_the_paired_table_puts_user_cpu_against_tcp_only_on_the_fabric_whose_rounds_had_it(self):
        runs = {("lkey.rxe", "randread"): [self.fake_run("1", 4.0, 2.0), self.fake_run("2", 6.0, 3.0)],
                ("knfsd.rxe", "randread"): [self.fake_run("1", 8.0), self.fake_run("2", 6.0)],
                ("tcp", "randread"): [self.fake_run("1", 5.0, 4.0), self.fake_run("2", 5.0, 4.0)],
                ("lkey.siw", "randread"): [self.fake_run("1", 3.0, 2.0)],
                ("knfsd.siw", "randread"): [self.fake_run("1", 6.0)]}
        lines = []
        run = type("R", (), {"w": lines.append, "fabrics": ["rxe", "siw"],
                             "info": {"baselines_in_rounds": "knfsd tcp"}})()
        saved = labtool.runs_of
        labtool.runs_of = lambda r, k, job: runs.get((k, job), [])
        try:
            labtool.paired_section(run, "rxe", ["knfsd.rxe", "tcp", "lkey.rxe"])
            self.assertIn("| rand. read 4 KiB, QD32 | our RDMA lkey/rxe | 0.75× (0.50–1.00, n=2) | 0.62× (0.50–0.75, n=2) |",
                          lines)
            lines.clear()
            labtool.paired_section(run, "siw", ["knfsd.siw", "tcp", "lkey.siw"])
            self.assertIn("| rand. read 4 KiB, QD32 | our RDMA lkey/siw | 0.50× (n=1) | — |", lines)
            lines.clear()
            run.info = {"baselines_in_rounds": " "}
            labtool.paired_section(run, "rxe", ["knfsd.rxe", "tcp", "lkey.rxe"])
            self.assertEqual([], lines)
        finally:
            labtool.runs_of = saved

    def test_the_text_says_which_baselines_shared_the_rounds(self):
        run = type("R", (), {"info": {"baselines_in_rounds": "knfsd tcp"}})()
        self.assertIn("knfsd and our TCP (in the first fabric's rounds) measured **in the same rounds**",
                      labtool.baselines_text(run))
        run.info = {"baselines_in_rounds": " "}
        self.assertIn("in a phase of its own", labtool.baselines_text(run))


class IdleTable(unittest.TestCase):
    @staticmethod
    def rows(**fields):
        rec = dict(key="nfs4.frmr.siw", t0="0", t1="20", guest_busy="34", guest_all="2000", server="-20", jit="0",
                   jfr="16", own="4", proc_user="", proc_sys="")
        rec.update(fields)
        lines = []
        run = type("R", (), {"w": lines.append, "hz": 100, "of": lambda self, kind: [type("Rec", (), rec)()]})()
        labtool.idle_section(run)
        return [line for line in lines if line.startswith("| nfs4j")]

    def test_the_process_totals_keep_the_time_of_a_thread_that_ended_in_the_window(self):
        # the threads alive at both ends lost an ended thread's CPU (-20 ticks); the process kept it
        self.assertEqual(["| nfs4j NFSv4.1 RDMA frmr/siw | 1.7 % | 1.6 % | 0.0 % | 0.8 % | 0.80 % | 0.20 % |"],
                         self.rows(proc_user="22", proc_sys="10"))

    def test_records_without_the_process_totals_keep_the_threads_sum(self):
        self.assertEqual(["| nfs4j NFSv4.1 RDMA frmr/siw | 1.7 % | -1.0 % | 0.0 % | 0.8 % | -1.80 % | 0.20 % |"],
                         self.rows())


class SwitchJobs(unittest.TestCase):
    """The console switch's write jobs: one stream back to back, or two streams at once."""

    Span = collections.namedtuple("Span", "t0 t1")

    def test_back_to_back_jobs_do_not_overlap(self):
        self.assertFalse(labtool.jobs_overlap([self.Span("10", "40.2"), self.Span("40.5", "70"), self.Span("70.1", "99")]))

    def test_two_streams_overlap(self):
        self.assertTrue(labtool.jobs_overlap([self.Span("10", "40"), self.Span("40.3", "70"), self.Span("18", "49")]))

    def test_a_job_without_times_is_left_out(self):
        self.assertFalse(labtool.jobs_overlap([self.Span("10", "40"), self.Span("", "")]))


if __name__ == "__main__":
    unittest.main()
