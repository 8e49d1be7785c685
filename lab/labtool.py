#!/usr/bin/env python3
"""Host-side helpers of lab/run (Python 3 standard library only).

  labtool.py rdma-check JAR_DIR... --features FEATURES_XML
      Whether the Karaf side can serve RPC-over-RDMA: some bundle declares a DS component with the
      configuration PID org.rpcrdma4j.transport, and the features to install for it exist. Prints
      shell assignments: RDMA_MISSING (empty when available, else the reason) and RDMA_FEATURES.
  labtool.py report RESULTS_DIR REPORT_MD key=value...
      Writes the Markdown report from RESULTS_DIR/results.tsv, fio/*.json, perf/*.txt and the flight
      recordings (raw/jfr/*.jfr, aggregated by JfrTop.java with the JDK's source launcher).
      Exit status: 0 all checks passed, 1 a data check failed (or a server failed), 3 only
      "not available" servers (or conformance) missing.
  labtool.py check-schema WORKLOAD
      Whether the guest's workload script writes exactly the record kinds of lab/records.py, each
      with a number of fields the schema allows. Exit status 0 when they agree, else 1.
"""
import collections
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import records

PID = "org.rpcrdma4j.transport"
WANTED_FEATURES = ["rpcrdma4j-verbs-disni", "rpcrdma4j-registration-lkey", "rpcrdma4j-registration-frmr"]
# installed too when the repository has them: RDMA WRITE of NFS READ data, the rpcrdma:* commands
OPTIONAL_FEATURES = ["rpcrdma4j-nfs-binding", "rpcrdma4j-shell"]


def rdma_check(args):
    features_xml = None
    dirs = []
    it = iter(args)
    for a in it:
        if a == "--features":
            features_xml = next(it)
        else:
            dirs.append(a)
    holder = None
    for d in dirs:
        for jar in sorted(glob.glob(os.path.join(d, "**", "*.jar"), recursive=True)):
            try:
                with zipfile.ZipFile(jar) as z:
                    for n in z.namelist():
                        if not (n.startswith("OSGI-INF/") and n.endswith(".xml")) or "/metatype/" in n:
                            continue
                        root = ET.fromstring(z.read(n))
                        pids = (root.get("configuration-pid") or root.get("name") or "").split()
                        if PID in pids:
                            holder = (jar, root.get("name"))
                            break
            except (zipfile.BadZipFile, ET.ParseError):
                continue
            if holder:
                break
        if holder:
            break
    missing, feats = "", []
    if not holder:
        missing = ("no bundle declares a DS component with configuration PID %s (the RDMA transport component "
                   "has not landed in the installed artifacts)" % PID)
    else:
        artifact = re.sub(r"-\d.*$", "", os.path.basename(holder[0]))
        features = {}
        if features_xml:
            for el in ET.parse(features_xml).getroot():
                if el.tag.split("}")[-1] == "feature":
                    bundles = [b.text.strip() for b in el if b.tag.split("}")[-1] == "bundle" and b.text]
                    features[el.get("name")] = bundles
        holding = [n for n, bs in features.items() if any("/" + artifact + "/" in b for b in bs)]
        absent = [f for f in WANTED_FEATURES if f not in features]
        if not holding:
            missing = "no feature lists the bundle %s (component %s)" % (artifact, holder[1])
        elif absent:
            missing = "features missing from the repository: " + ", ".join(absent)
        feats = holding[:1] + WANTED_FEATURES + [f for f in OPTIONAL_FEATURES if f in features]
    print("RDMA_MISSING=" + shlex.quote(missing))
    print("RDMA_FEATURES=" + shlex.quote(" ".join(feats)))
    print("RDMA_COMPONENT=" + shlex.quote("%s in %s" % (holder[1], os.path.basename(holder[0])) if holder else ""))
    return 0


JOBS = [("seqwrite", "write", "seq. write 1 MiB, QD16"), ("seqread", "read", "seq. read 1 MiB, QD16"),
        ("randread", "read", "rand. read 4 KiB, QD32"), ("randwrite", "write", "rand. write 4 KiB, QD32")]


def label(key):
    """knfsd.rxe -> knfsd/rxe, tcp -> our TCP, lkey.siw -> our RDMA lkey/siw, rdma.rxe -> our RDMA/rxe;
    NFSv4.1 (the nfs4 phase): knfsd4.rxe -> knfsd NFSv4.1/rxe, nfs4.lkey.rxe -> nfs4j NFSv4.1 RDMA lkey/rxe."""
    if key.startswith("nfs4."):
        rest = label(key[len("nfs4."):])
        return "nfs4j NFSv4.1 " + (rest[len("our "):] if rest.startswith("our ") else rest)
    if key.startswith("knfsd4."):
        return "knfsd NFSv4.1/" + key[len("knfsd4."):]
    base, _, fab = key.partition(".")
    name = {"knfsd": "knfsd", "tcp": "our TCP", "lkey": "our RDMA lkey", "frmr": "our RDMA frmr",
            "switch": "our RDMA lkey→frmr", "rdma": "our RDMA", "jvm": "our JVM (TCP + RDMA)",
            "recall": "our RDMA, CB_RECALL", "restart": "our RDMA, restarted",
            "parallel": "our RDMA, parallel mounts"}.get(base, base)
    return name + ("/" + fab if fab else "")


def fio_json(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return None


def fio_numbers(path, direction):
    """MB/s, IOPS, clat p50 and p99 (µs), bytes moved, operations, or None."""
    data = fio_json(path)
    try:
        job = data["jobs"][0]
        d = job[direction]
        pct = d.get("clat_ns", {}).get("percentile", {})
        p50, p99 = pct.get("50.000000"), pct.get("99.000000")
        nbytes = sum(job[x]["io_bytes"] for x in ("read", "write"))
        ops = sum(job[x]["total_ios"] for x in ("read", "write"))
        return {"mbs": d["bw_bytes"] / 1e6, "iops": d["iops"], "p50": p50 / 1e3 if p50 else None,
                "p99": p99 / 1e3 if p99 else None, "bytes": nbytes, "ops": ops}
    except (TypeError, KeyError, IndexError):
        return None


def fmt(x, nd=1):
    return "—" if x is None else ("%.*f" % (nd, x))


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def opt_float(value):
    """A record's numeric field, or None when the record lacks it (written before it existed)."""
    return float(value) if value != "" else None


def jfr_settings_text(info, short=False):
    """What the server's flight recording recorded: the guest's lab_jfc since it wrote jfr_settings, settings=profile before."""
    lab = info.get("jfr_settings") == "lab"
    if short:
        return "the lab's settings: CPU samples every 20 ms, allocation samples, compilations" if lab else "settings=profile"
    if lab:
        return ("the lab's settings, lab_jfc in lab/guest/workload: execution samples every 20 ms per running Java "
                "thread, allocation samples, compilations; nothing else")
    return "settings=profile: execution samples every 10 ms per running Java thread, allocation samples"


def ratio(a, b):
    return "" if a is None or b in (None, 0) else "%.2f×" % (a / b)


def perf_line(path, ncols):
    """The data line of a perftest report: the first line of numbers after the '#bytes' header."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None
    seen = False
    for line in lines:
        if "#bytes" in line:
            seen = True
            continue
        f = line.split()
        if seen and len(f) >= ncols and all(re.match(r"^[0-9.]+$", x) for x in f[:ncols]):
            return [float(x) for x in f[:ncols]]
    return None


def run_jfr(meta, rdir, windows):
    files = sorted(glob.glob(os.path.join(rdir, "raw", "jfr", "*.jfr")) + glob.glob(os.path.join(rdir, "jfr", "*.jfr")))
    files = [f for f in files if os.path.getsize(f) > 0]
    if not files or not windows:
        return None, "no flight recording" if not files else "no measured window"
    wfile = os.path.join(rdir, "raw", "jfr-windows.tsv")
    os.makedirs(os.path.dirname(wfile), exist_ok=True)
    with open(wfile, "w") as f:
        for w in windows:
            f.write("%s\t%s\t%s\n" % w)
    tool = os.path.join(meta.get("lab_dir", os.path.dirname(os.path.abspath(__file__))), "JfrTop.java")
    try:
        p = subprocess.run(["java", tool, wfile] + files, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "JfrTop failed: %s" % e
    if p.returncode != 0:
        return None, "JfrTop failed: %s" % p.stderr.strip()[-300:]
    out = {}
    compstat, comps, deopts = {}, {}, {}
    for line in p.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 4:
            continue
        if f[0] == "comp" and len(f) >= 8:
            try:
                comps.setdefault(f[1], []).append((float(f[2]), int(f[3]), int(f[4]), f[5] == "true", f[6], f[7]))
            except ValueError:
                pass
            continue
        if f[0] == "deopt" and len(f) >= 7:
            try:
                deopts.setdefault(f[1], []).append((float(f[2]), f[3], f[4], f[5], f[6]))
            except ValueError:
                pass
            continue
        if f[0] == "compstat":
            try:
                compstat.setdefault(f[1], []).append((float(f[2]), int(f[3]), int(f[4])))
            except (ValueError, IndexError):
                pass
            continue
        d = out.setdefault(f[1], {"leaf": [], "own": [], "thread": [], "part": [], "alloc": [], "wait": []})
        if f[0] == "wait":
            if len(f) >= 5:
                d["wait"].append((int(f[2]), f[3], f[4]))
            continue
        if f[0] == "town":
            if len(f) >= 5:
                d.setdefault("town", {}).setdefault(f[2], []).append((int(f[3]), f[4]))
            continue
        if f[0] == "window":
            d["seconds"], d["samples"], d["allocated"], d["compilations"] = float(f[2]), int(f[3]), int(f[4]), int(f[5])
        else:
            d[f[0]].append((int(f[2]), f[3]))
    out["_compstat"] = compstat
    out["_comp"] = comps
    out["_deopt"] = deopts
    return out, "%d recording(s): %s" % (len(files), ", ".join(os.path.basename(x) for x in files))


SETTLED_PCT = 5.0  # the warm-up's own bound: the JIT under 5 % of one vCPU
COMPILE_SLICE_S = 120  # the compile timeline's slice
MEASURED_MIN_S = 20  # a slice with less measured time than this says nothing about the measured runs


# Where compiled code comes from, by the first package prefixes that match (the rest: "other").
JIT_ORIGINS = [("org.rpcrdma4j.", "rpcrdma4j"), ("org.dcache.", "oncrpc4j / nfs4j (org.dcache)"),
               ("com.ibm.disni.", "DiSNI"), ("org.glassfish.grizzly.", "Grizzly (oncrpc4j TCP)"),
               ("org.apache.karaf.", "Karaf, Felix, SSHD, Aries"), ("org.apache.felix.", "Karaf, Felix, SSHD, Aries"),
               ("org.apache.sshd.", "Karaf, Felix, SSHD, Aries"), ("org.apache.aries.", "Karaf, Felix, SSHD, Aries"),
               ("org.osgi.", "Karaf, Felix, SSHD, Aries"), ("jdk.jfr.", "JFR (the recording itself)"),
               ("jdk.internal.", "JDK"), ("java.", "JDK"), ("javax.", "JDK"), ("sun.", "JDK"), ("jdk.", "JDK")]


def jit_origin(cls):
    for prefix, origin in JIT_ORIGINS:
        if cls.startswith(prefix):
            return origin
    return "other"


def jit_in_windows(comps, deopts, windows):
    """What the JIT did while measured runs ran: comps [(t, ms, level, osr, class, method)] and
    deopts [(t, class, method, reason, action)] of one recording, windows [(start, end)].
    Returns (by origin [(origin, seconds, count, C2 count, its 3 longest methods [(seconds, count,
    tiers, class.method)])], deopt reasons [(count, reason)], compile seconds, compilations,
    deoptimizations)."""
    def inside(t):
        return any(a <= t < b for a, b in windows)
    cs = [c for c in comps if inside(c[0])]
    ds = [d for d in deopts if inside(d[0])]
    origins, reasons = {}, {}
    for t, ms, level, osr, cls, m in cs:
        o = origins.setdefault(jit_origin(cls), [0.0, 0, 0, {}])
        o[0] += ms / 1000.0
        o[1] += 1
        o[2] += level == 4
        e = o[3].setdefault(cls[cls.rfind(".") + 1:] + "." + m + (" (OSR)" if osr else ""), [0.0, 0, set()])
        e[0] += ms / 1000.0
        e[1] += 1
        e[2].add("C2" if level == 4 else "C1")
    for d in ds:
        reasons[d[3]] = reasons.get(d[3], 0) + 1
    by_origin = sorted(((k, v[0], v[1], v[2], sorted(((e[0], e[1], "/".join(sorted(e[2])), name)
                                                       for name, e in v[3].items()), key=lambda x: -x[0])[:3])
                        for k, v in origins.items()), key=lambda x: -x[1])
    return (by_origin, sorted(((n, r) for r, n in reasons.items()), reverse=True),
            sum(c[1] for c in cs) / 1000.0, len(cs), len(ds))


def compile_timeline(series, spans, measured, bucket=COMPILE_SLICE_S):
    """The JIT's work per bucket of one JVM's life from its jdk.CompilerStatistics series
    [(epoch s, cumulative compile ms, cumulative compilations)], with what ran then (spans:
    [(start, end, what)]). Returns (rows, settled): rows of (minute, compile s, % of one vCPU,
    compilations, what, % of one vCPU while measured runs ran or None), and the minute from which
    the JIT stayed under SETTLED_PCT in every later bucket's share of the measured runs
    (`measured`: [(start, end)]; buckets with under MEASURED_MIN_S of them do not count). None
    when the last bucket that counts did not (or none counts)."""
    series = sorted(series)
    if len(series) < 2:
        return [], None
    t0 = series[0][0]
    rows = []
    i = 0
    start = t0
    while start < series[-1][0]:
        end = start + bucket
        first = series[i]
        j = i
        while j + 1 < len(series) and series[j + 1][0] <= end:
            j += 1
        last = series[j]
        secs = last[0] - first[0]
        ms, n = last[1] - first[1], last[2] - first[2]
        what = sorted(set(w for a, b, w in spans if a < end and b > start))
        m_secs = m_ms = 0.0
        for k in range(i, j):
            a, b = series[k], series[k + 1]
            if any(ws <= a[0] and b[0] <= we for ws, we in measured):
                m_secs += b[0] - a[0]
                m_ms += b[1] - a[1]
        in_runs = 100.0 * m_ms / 1000.0 / m_secs if m_secs >= MEASURED_MIN_S else None
        rows.append(((start - t0) / 60, ms / 1000.0, 100.0 * ms / 1000.0 / secs if secs > 0 else 0.0, n,
                     ", ".join(what), in_runs))
        if j + 1 >= len(series):
            break
        i, start = j, end
    settled = None
    for r in reversed(rows):
        if r[5] is None:
            continue
        if r[5] >= SETTLED_PCT:
            break
        settled = r[0]
    return rows, settled


def throughput_rows(w, med, keys, label, baseline, tcp, no_tcp_ratio, baseline_title, tcp_title):
    """The throughput table of one fabric: a row per workload and server (medians of its runs),
    with the ratio to the baseline server (knfsd) and to our TCP server of the same protocol."""
    w("| workload | server | MB/s | min–max | spread | IOPS | p50 µs | p99 µs | %s | %s |" % (baseline_title, tcp_title))
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for job, _, desc in JOBS:
        base = med.get((baseline, job), {}).get("mbs")
        tcpb = med.get((tcp, job), {}).get("mbs")
        for k in keys:
            m = med.get((k, job))
            if not m:
                continue
            spread = (m["max"] - m["min"]) / m["mbs"] * 100 if m["mbs"] and m["n"] > 1 else None
            w("| %s | %s | %s | %s–%s | %s | %s | %s | %s | %s | %s |" % (
                desc, label(k), fmt(m["mbs"], 2), fmt(m["min"], 2), fmt(m["max"], 2),
                "n=1" if m["n"] == 1 else fmt(spread, 0) + " %", fmt(m["iops"], 0), fmt(m["p50"], 0), fmt(m["p99"], 0),
                "" if k.startswith("knfsd") else ratio(m["mbs"], base),
                "" if k.startswith(no_tcp_ratio) else ratio(m["mbs"], tcpb)))


class Run:
    """What the report's sections read: lab/run's arguments (meta), the results folder and its
    records (lab/records.py), and the report's lines written so far."""

    def __init__(self, rdir, meta):
        self.rdir, self.meta = rdir, meta
        self.recs = records.read(os.path.join(rdir, "results.tsv"))
        self.info = {r.key: r.value for r in self.recs.of("info")}
        self.hz = float(self.info.get("clk_tck", "100") or 100)
        self.fabrics = meta.get("fabrics", "rxe siw").split()
        self.wanted = meta.get("phases", "perftest,knfsd,tcp,rdma,faults,conformance").split(",")
        self.ncpu = float(self.info.get("cpus", meta.get("smp", "2")) or 2)
        self.fab_rec = {r.fabric: r for r in self.recs.of("fabric")}
        self.servers = {r.key: r for r in self.recs.of("server")}
        self.skipped = self.recs.of("skipped")
        self.skipped_keys = set(k for r in self.skipped for k in r.keys.split())
        self.runs = self.recs.of("run")
        self.keys = server_keys(self.fabrics, self.wanted)
        self.lines = []

    def of(self, kind):
        return self.recs.of(kind)

    def w(self, line):
        self.lines.append(line)

    def path(self, name):
        return os.path.join(self.rdir, name)

    def status(self, key):
        """A server's recorded status (available, failed, missing) or ""."""
        r = self.servers.get(key)
        return r.status if r else ""


def server_keys(fabrics, wanted):
    """Every server the report lists, in its order: NFSv3 (knfsd, our TCP, our RDMA strategies),
    then with the nfs4 phase the NFSv4.1 ones."""
    keys = ["knfsd." + f for f in fabrics] + ["tcp"]
    for f in fabrics:
        keys += ["lkey." + f, "frmr." + f]
    if "nfs4" in wanted:
        keys += ["knfsd4." + f for f in fabrics] + ["nfs4.tcp"]
        for f in fabrics:
            keys += ["nfs4.lkey." + f, "nfs4.frmr." + f]
    return keys


# What the guest's clock source means for every clock read (lab/run, LAB_CLOCKSOURCE)
CLOCK_SOURCES = {"tsc": " (read in user mode by the vDSO, as on our users' machines)",
                 "hpet": " (not readable by the vDSO: every clock read is a system call)"}


def header(run):
    meta, info, w = run.meta, run.info, run.w
    w("# Lab: the Linux kernel NFS client over soft-RDMA (rxe and siw) — %s" % meta.get("name", ""))
    w("")
    w("`lab/run` of commit `%s`%s, %s. NFSv3%s; the Linux kernel client, the servers and the soft-RDMA devices in one "
      "Debian 12 guest under qemu TCG (software CPU): absolute numbers measure the emulated CPU; compare the rows of "
      "one report (README, \"Reading the report\")." % (
          meta.get("sha", "?"), " (tree with uncommitted changes)" if meta.get("dirty") == "1" else "",
          meta.get("date", ""), " (and NFSv4.1: the nfs4 phase)" if "nfs4" in run.wanted else ""))
    w("")
    # an experiment's own setting, which the workload records (info experiment...) when it is changed for one run
    for key in sorted(k for k in info if k.startswith("experiment")):
        w("**Experiment** (`%s`): %s. The run's workload differs from the commit's in this setting only." % (key, info[key]))
        w("")
    w("| | |")
    w("|---|---|")
    if meta.get("tcg", "single") == "single":
        budget = ("**equal for every server**: qemu's single-threaded TCG runs the guest's %s vCPUs in turn on one host "
                  "thread, so whichever server runs, it shares that one host core with the kernel client, fio and the "
                  "soft-RDMA device; nothing is pinned (knfsd's threads, our JVM's threads and the kernel's completion "
                  "work may use either vCPU). The JVM needs no pinning here: with one TCG thread, HotSpot's patching "
                  "of compiled code is ordered with every vCPU's later execution of it." % meta.get("smp", "2"))
    else:
        budget = ("multi-threaded TCG (one host thread per vCPU); every server (our JVM, knfsd's nfsd threads) pinned to "
                  "vCPU 0; the kernel's completion work is not pinned")
    w("| CPU budget | %s |" % budget)
    w("| host | %s; %s (**the host was shared with other developers' builds**: absolute numbers and spreads are "
      "wider than on a quiet host) |" % (meta.get("host_cpu", "?"), meta.get("host_load", "?")))
    source = info.get("clocksource")
    clock = "; clock source %s%s" % (source, CLOCK_SOURCES.get(source, "")) if source else ""
    w("| guest | kernel %s, %s vCPU, %s MiB, %s%s |" % (info.get("kernel", "?"), info.get("cpus", "?"), info.get("mem_mib", "?"),
                                                       info.get("cpu", "?"), clock))
    if meta.get("server_jit", "tiered") == "c1":
        jit = ("**C1 only** (`LAB_SERVER_JIT=c1`, -XX:TieredStopAtLevel=1): C1's optimized code without profiling "
               "and without C2, which under a software CPU keeps compiling for about 20 minutes of the JVM's life; "
               "its code is slower than C2's, so knfsd is compared with a handicapped JVM, our TCP and RDMA servers "
               "with each other fairly (one JVM serves both)")
    else:
        jit = "tiered compilation (C1, then C2: HotSpot's default, `LAB_SERVER_JIT=tiered`)"
    w("| guest Java | %s; our server runs with a flight recording (%s); JIT: %s |" % (info.get("java", "?"), jfr_settings_text(info, short=True), jit))
    if meta.get("transport_settings"):
        w("| transport settings | **an experiment**: `%s` added to the RDMA transport's configuration "
          "(`LAB_TRANSPORT_SETTINGS`); every other setting as shipped |" % meta["transport_settings"])
    crashes = [r.value for r in run.of("info") if r.key == "karaf-crash"]
    w("| JVM crashes | %s |" % ("; ".join(crashes) if crashes else "none"))
    w("| fio | %s; %s s per measured job, %s runs per workload on rxe (interleaved), %s on siw; 64 MiB file, direct I/O, "
      "libaio; warm-up before each server's jobs (below) |" % (info.get("fio", "?"), meta.get("fio_runtime", "?"),
                                                               meta.get("fio_reps", "?"), meta.get("siw_fio_reps", "1")))
    if info.get("knfsd_max_block_size"):
        w("| knfsd | largest READ and WRITE %s bytes (`/proc/fs/nfsd/max_block_size`, set before its threads start; "
          "runs up to 2026-12-07-1718 left it at its default, 512 KiB in this guest, half of ours) |" %
          info["knfsd_max_block_size"])
    for f in run.fabrics:
        r = run.fab_rec.get(f)
        status, detail = (r.status, r.detail) if r else ("—", "not set up")
        w("| fabric %s | %s%s |" % (f, detail if status == "ok" else "**%s**: %s" % (status, detail),
                                    "; " + meta["siw"] if f == "siw" and meta.get("siw") else ""))
    w("| assembly | %s |" % meta.get("assembly", "?"))
    w("| RDMA component | %s |" % (meta.get("rdma_component") or "none"))
    w("")


def servers_section(run):
    """The servers table. Returns (missing, failed): the keys not available (or skipped), and failed."""
    w = run.w
    w("## Servers")
    w("")
    w("| server | status | what |")
    w("|---|---|---|")
    missing, failed = [], []
    siw = run.fab_rec.get("siw")
    for k in run.keys:
        ph = {"knfsd": "knfsd", "tcp": "tcp", "knfsd4": "nfs4", "nfs4": "nfs4"}.get(k.split(".")[0], "rdma")
        # A server the chosen phases did not measure may still have been started (the faults
        # phase starts ours): a failure it recorded counts, whatever --phases said.
        if ph not in run.wanted and run.status(k) != "failed":
            w("| %s | not run (--phases) | |" % label(k))
            continue
        r = run.servers.get(k)
        st, what = (r.status, r.detail) if r else ("failed", "no result recorded (guest stopped early?)")
        if r is None and k in run.skipped_keys:
            missing.append(k)
            w("| %s | **not run** | skipped: %s |" % (label(k), next(s.why for s in run.skipped if k in s.keys.split())))
        elif st == "missing" or (k.endswith(".siw") and siw is not None and siw.status == "missing"):
            missing.append(k)
            w("| %s | **not available** | %s |" % (label(k), what or (siw.detail if siw else "")))
        elif st == "available":
            w("| %s | ran | %s |" % (label(k), what))
        else:
            failed.append(k)
            w("| %s | **FAILED** | %s |" % (label(k), what))
    w("")
    return missing, failed


def perftest_section(run):
    w = run.w
    w("## The fabric's own limit (perftest)")
    w("")
    if "perftest" not in run.wanted:
        w("Not run (--phases).")
        w("")
        return
    w("Server and client of perftest 4.5 in the guest on the same device and address as the NFS runs (`-R`: "
      "connection manager; 500 messages of 64 KiB for bandwidth; 2,000 SENDs of 2 bytes for latency; `-e`, sleeping on "
      "completion events, for `ib_read_bw` and `ib_send_lat`: `ib_write_bw` has no event mode and busy-polls both vCPUs, "
      "so under single-threaded TCG it takes the emulated CPU from the soft device it measures). perftest's "
      "own figure (from the CPU's cycle counter; it prints MiB/s, converted here to 10^6 B/s like fio's MB/s), and "
      "32 MiB over the client's wall time from start to exit (connection setup included: a lower bound).")
    w("")
    w("| fabric | ib_write_bw MB/s | (wall) | ib_read_bw MB/s | (wall) | ib_send_lat typical µs | p99 µs | exit codes |")
    w("|---|---:|---:|---:|---:|---:|---:|---|")
    for f in run.fabrics:
        got = {p.tool: p for p in run.of("perf") if p.fabric == f}
        if not got:
            continue
        wb = perf_line(run.path(os.path.join("perf", "%s-ib_write_bw.txt" % f)), 4)
        rb = perf_line(run.path(os.path.join("perf", "%s-ib_read_bw.txt" % f)), 4)
        lt = perf_line(run.path(os.path.join("perf", "%s-ib_send_lat.txt" % f)), 8)

        def wall(tool):
            try:
                return 500 * 65536 / 1e6 / (float(got[tool].t1) - float(got[tool].t0))
            except (KeyError, ValueError, ZeroDivisionError):
                return None
        w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (f, fmt(wb[3] * 1.048576 if wb else None), fmt(wall("ib_write_bw")),
                                                         fmt(rb[3] * 1.048576 if rb else None), fmt(wall("ib_read_bw")),
                                                         fmt(lt[4] if lt else None, 2), fmt(lt[7] if lt else None, 2),
                                                         " ".join("%s=%s" % (t.replace("ib_", ""), got[t].rc) for t in sorted(got))))
    w("")


def process_ticks(r):
    """The server's CPU ticks over a record's window from the process's own user and system totals
    (/proc/PID/stat, which keep the time of threads that ended inside the window), or None for a
    record made before the workload wrote them. The sum over the threads alive at each end loses
    the CPU of a thread that ended in between: an idle window once showed -1.0 %."""
    pu, ps = opt_float(r.proc_user), opt_float(r.proc_sys)
    return None if pu is None or ps is None else pu + ps


def runs_of(run, k, job):
    """fio's numbers of each measured run of server k's job, with the run's CPU seconds: secs (the
    window), gbusy, gall (the guest's), srv, jit, gc, sys (the server's threads'); secs None when
    the record has no CPU figures."""
    out = []
    direction = dict((j, d) for j, d, _ in JOBS)[job]
    for r in run.runs:
        if r.key == k and r.job == job and r.fio:
            n = fio_numbers(run.path(r.fio), direction)
            if n is None:
                continue
            try:
                n["secs"] = float(r.t1) - float(r.t0)
                n["gbusy"], n["gall"], n["srv"], n["jit"], n["gc"] = [
                    float(x) / run.hz for x in (r.guest_busy, r.guest_all, r.server, r.jit, r.gc)]
                # the server threads' system time and the compilers' user time (fields some committed
                # folders' records do not have)
                ticks = lambda v: None if opt_float(v) is None else opt_float(v) / run.hz
                n["sys"], n["jituser"] = ticks(r.sys), ticks(r.jit_user)
            except ValueError:
                n["secs"] = None
            n["rep"] = r.rep
            out.append(n)
    return out


def host_loads(rdir):
    """The host's 1-minute load average samples [(epoch s, load)] (lab/run samples it)."""
    load = []
    try:
        for line in open(os.path.join(rdir, "host-load.txt")):
            t, v = line.split()
            load.append((float(t), float(v)))
    except (OSError, ValueError):
        pass
    return load


def host_load(run, load, k):
    """The mean host load during server k's measured runs, or None."""
    vals = []
    for r in run.runs:
        if r.key == k and r.t0 and r.t1:
            try:
                a, b = float(r.t0), float(r.t1)
            except ValueError:
                continue
            vals += [v for t, v in load if a - 15 <= t <= b + 15]
    return sum(vals) / len(vals) if vals else None


def user_seconds(r):
    """A run's user-mode CPU seconds of the server's threads less the compilers', or None for a
    record without the compilers' user time or the threads' system time."""
    if r.get("jituser") is None or r.get("sys") is None:
        return None
    return r["srv"] - r["sys"] - r["jituser"]


def job_medians(rs):
    """The medians over one server's runs of one job: throughput, latency and cost."""
    m = {x: median([r[x] for r in rs]) for x in ("mbs", "iops", "p50", "p99")}
    m["n"], m["min"], m["max"] = len(rs), min(r["mbs"] for r in rs), max(r["mbs"] for r in rs)
    cost = [r for r in rs if r.get("secs")]
    m["g_gb"] = median([r["gbusy"] / (r["bytes"] / 1e9) for r in cost if r["bytes"]])
    m["s_gb"] = median([r["srv"] / (r["bytes"] / 1e9) for r in cost if r["bytes"]])
    m["g_kop"] = median([r["gbusy"] / (r["ops"] / 1e3) for r in cost if r["ops"]])
    m["s_kop"] = median([r["srv"] / (r["ops"] / 1e3) for r in cost if r["ops"]])
    m["busy"] = median([100 * r["gbusy"] / r["gall"] for r in cost if r["gall"]])
    m["jit"] = median([100 * r["jit"] / r["srv"] for r in cost if r["srv"]])
    m["jitv"] = median([100 * r["jit"] / r["secs"] for r in cost if r["secs"]])
    m["kern"] = median([100 * r["sys"] / r["srv"] for r in cost if r["srv"] and r.get("sys") is not None])
    # user mode of the server's threads (their sums, one consistent account: the process's own
    # user/system split is apportioned differently by the kernel) less the compilers' user time;
    # kernel: their system time less the compilers'; only where the records have the compilers' user time
    user = [(r, u, r["sys"] - (r["jit"] - r["jituser"])) for r in cost if (u := user_seconds(r)) is not None]
    m["u_kop"] = median([u / (r["ops"] / 1e3) for r, u, _ in user if r["ops"]])
    m["u_gb"] = median([u / (r["bytes"] / 1e9) for r, u, _ in user if r["bytes"]])
    m["k_kop"] = median([k / (r["ops"] / 1e3) for r, _, k in user if r["ops"]])
    return m


def fio_medians(run, keys):
    """({(server, job): medians}, ["server job" without a result]) of the servers `keys`."""
    med, fio_fail = {}, []
    for k in keys:
        for job, _, _ in JOBS:
            rs = runs_of(run, k, job)
            if not rs:
                fio_fail.append("%s %s" % (k, job))
                continue
            med[(k, job)] = job_medians(rs)
    return med, fio_fail


def runs_of_fabric(run, f):
    """How many fio runs of each workload a fabric's medians are of, in words."""
    reps = run.meta.get("fio_reps", "3") if f == "rxe" else run.meta.get("siw_fio_reps", "1")
    return "one run (siw)" if f != "rxe" and reps == "1" else "%s runs" % reps


def throughput_section(run, f, fkeys, med, load):
    """The NFSv3 throughput table of fabric f, the lkey→frmr switch's row, and the cost table."""
    w = run.w
    w("## Throughput and latency on %s" % f)
    w("")
    w("Median of %s; spread = (max − min) / median of MB/s; completion latency (fio clat) p50 and p99 are medians "
      "of the runs' percentiles. Ratios are of medians. Our TCP rows are the same runs in both fabrics' tables." % (
          runs_of_fabric(run, f)))
    w("")
    loads = ["%s %.1f" % (label(k), host_load(run, load, k)) for k in fkeys if host_load(run, load, k) is not None]
    if loads:
        w("Host load (1-minute load average of the 2-core host, mean over each server's measured runs): %s. "
          "Compare servers measured under similar load only." % "; ".join(loads))
        w("")
    if "baselines_in_rounds" in run.info:  # recorded from 2026-12-07 on
        w(baselines_text(run))
        w("")
    throughput_rows(w, med, fkeys, label, "knfsd." + f, "tcp", ("knfsd", "tcp"), "vs knfsd", "vs our TCP")
    for r in run.runs:
        if r.key == "switch." + f and r.fio:
            sw = fio_numbers(run.path(r.fio), "write")
            if sw:
                w("| write 256 KiB, QD8, md5 verify, lkey→frmr switched during it | %s | %s | | n=1 | %s | %s | %s | | |" % (
                    label("switch." + f), fmt(sw["mbs"], 2), fmt(sw["iops"], 0), fmt(sw["p50"], 0), fmt(sw["p99"], 0)))
    w("")
    device_counters_section(run, f, fkeys)
    paired_section(run, f, fkeys)
    cost_section(run, f, fkeys, med)
    user_cpu_section(run, f, fkeys, med, "tcp", "our TCP")


def baselines_text(run):
    """How the baselines' runs relate in time to our RDMA server's: in the same rounds, or apart."""
    inside = run.info.get("baselines_in_rounds", "").split()
    if not inside:
        return ("**Each server was measured in a phase of its own** (knfsd before our JVM started, our TCP before our "
                "RDMA): minutes apart, under a software CPU whose speed drifts between phases by more than the bars' "
                "margins. Read ratios between servers with care.")
    names = {"knfsd": "knfsd", "tcp": "our TCP (in the first fabric's rounds)"}
    return ("%s measured **in the same rounds** as our RDMA strategies, each on a mount of its own: every round "
            "runs each server's four workloads in turn, starting with a different server each round, so a drift "
            "of the guest's speed falls on all of them alike." % " and ".join(names[b] for b in inside if b in names))


def user_per_op(r):
    """A run's user-mode CPU seconds of the server per operation (user_seconds), or None."""
    u = user_seconds(r) if r.get("secs") else None
    return None if u is None or not r["ops"] else u / r["ops"]


def paired(ours, base, measure):
    """Ratios of measure(our run) to measure(the baseline's run of the same round), rounds in order."""
    by_rep = {r["rep"]: r for r in base}
    out = []
    for r in sorted(ours, key=lambda x: int(x["rep"]) if str(x["rep"]).isdigit() else 0):
        b = by_rep.get(r["rep"])
        a, z = measure(r), measure(b) if b else None
        if a is not None and z:
            out.append(a / z)
    return out


def paired_text(ratios):
    if not ratios:
        return "—"
    if len(ratios) == 1:
        return "%.2f× (n=1)" % ratios[0]
    return "%.2f× (%.2f–%.2f, n=%d)" % (median(ratios), min(ratios), max(ratios), len(ratios))


def paired_section(run, f, fkeys):
    """With the baselines in the same rounds: each round's ratio of our RDMA server to knfsd (MB/s)
    and to our TCP (user CPU per operation), so the drift between rounds cancels out."""
    inside = run.info.get("baselines_in_rounds", "").split()
    if not inside:
        return
    tcp_here = "tcp" in inside and run.fabrics and f == run.fabrics[0]
    ours = [k for k in fkeys if k.split(".")[0] in ("lkey", "frmr")]
    if not ours:
        return
    w = run.w
    w("Paired by round (the baselines measured in the same rounds): the median of each round's ratio, with its "
      "min–max, of our RDMA server's MB/s to knfsd's%s. A ratio whose min–max stays on one side of 1.0 (or 0.5) "
      "says more than the ratio of medians above." % (
          " and of its user-mode CPU per operation to our TCP's (the bar: at most 0.5)" if tcp_here else ""))
    w("")
    w("| workload | server | vs knfsd, per round | user CPU vs our TCP, per round |")
    w("|---|---|---:|---:|")
    for job, _, desc in JOBS:
        kn = runs_of(run, "knfsd." + f, job) if "knfsd" in inside else []
        tc = runs_of(run, "tcp", job) if tcp_here else []
        for k in ours:
            mine = runs_of(run, k, job)
            if not mine:
                continue
            w("| %s | %s | %s | %s |" % (desc, label(k), paired_text(paired(mine, kn, lambda r: r["mbs"])),
                                         paired_text(paired(mine, tc, user_per_op)) if tcp_here else "—"))
    w("")


HW_BLOCK = re.compile(r"^# (\S+) round (\d+) (begins|ends) ")


def hw_blocks(text, device):
    """rxe's hardware counters summed over each server's blocks of the measured rounds
    (hwcounters-rdma.<fabric>.txt: snapshots labelled "<key> round <n> begins|ends"):
    {key: {counter: delta}}, counters of the device only."""
    snaps, cur = [], None
    for line in text.splitlines():
        m = HW_BLOCK.match(line)
        if line.startswith("#"):
            cur = {"block": (m.group(1), m.group(2), m.group(3)) if m else None, "v": {}}
            snaps.append(cur)
        elif cur is not None and line.startswith(device + "/"):
            name, _, value = line.partition(" ")
            try:
                cur["v"][name.rsplit("/", 1)[-1]] = int(value)
            except ValueError:
                pass
    sums = collections.OrderedDict()
    begun = {}
    for sn in snaps:
        if not sn["block"]:
            continue
        key, n, edge = sn["block"]
        if edge == "begins":
            begun[(key, n)] = sn["v"]
        elif (key, n) in begun:
            a = begun.pop((key, n))
            tot = sums.setdefault(key, collections.OrderedDict())
            for c, v in sn["v"].items():
                if c in a:
                    tot[c] = tot.get(c, 0) + v - a[c]
    return sums


HW_COLUMNS = [("sent_pkts", "packets sent"), ("completer_retry_err", "requester retries"),
              ("duplicate_request", "duplicate requests"), ("out_of_seq_request", "out-of-sequence requests"),
              ("rcvd_seq_err", "sequence errors"), ("rcvd_rnr_err", "RNR NAKs received"), ("ack_deferred", "ACKs deferred")]


def device_counters_section(run, f, fkeys):
    """What the soft device did during each server's blocks of the measured rounds (rxe only: siw has no counters)."""
    dev = {"rxe": "rxe0"}.get(f)
    path = run.path("hwcounters-rdma.%s.txt" % f)
    if not dev or not os.path.exists(path):
        return
    with open(path, encoding="utf-8", errors="replace") as fh:
        sums = hw_blocks(fh.read(), dev)
    keys = [k for k in fkeys if k in sums]
    if not keys:
        return
    w = run.w
    w("%s's hardware counters over each server's blocks of the measured rounds, summed "
      "(`hwcounters-rdma.%s.txt`): a server whose rows show retries or duplicate requests lost time to "
      "retransmission on the soft device, which its throughput does not say by itself. Our TCP's blocks count "
      "only the device's idle chatter." % (dev, f))
    w("")
    w("| server | %s | retries per million packets |" % " | ".join(t for _, t in HW_COLUMNS))
    w("|---|%s---:|" % ("---:|" * len(HW_COLUMNS)))
    for k in keys:
        c = sums[k]
        sent = c.get("sent_pkts", 0)
        w("| %s | %s | %s |" % (label(k), " | ".join("{:,}".format(c.get(n, 0)) for n, _ in HW_COLUMNS),
                                fmt(1e6 * c.get("completer_retry_err", 0) / sent, 1) if sent else "—"))
    w("")


def cost_section(run, f, fkeys, med):
    w = run.w
    w("### Cost on %s" % f)
    w("")
    w("CPU seconds per GB moved and per 1,000 operations (medians over the runs): *guest* = every vCPU's busy time "
      "(/proc/stat: the client, fio, the soft-RDMA device's kernel work and the server); *server* = the server's own "
      "threads (our JVM's threads, or knfsd's nfsd threads: the kernel completion work knfsd causes is only in the "
      "guest figure). *busy* = the guest's busy share of its %d vCPUs; *JIT* = the C1/C2 compiler threads' share of "
      "the server's CPU, and in vCPU %% during the job. *in kernel* = the system-time share of the server's CPU. "
      "Read *server* with it: the soft devices do a queue pair's send work in different places. rxe runs a user "
      "queue pair's (ours, through DiSNI) in the thread that calls ibv_post_send (Linux 6.1 rxe_post_send: "
      "\"utilize process context to do protocol processing\": segmentation, ICRC, the UDP transmit, and on "
      "this one-host fabric often the receiver's processing too), so it is charged to our server; for a kernel "
      "queue pair (knfsd's) the same work runs in a tasklet that no nfsd thread is charged for. Compare the "
      "*guest* columns across servers; *server* is fair between our TCP and our RDMA servers only." % run.ncpu)
    w("")
    w("| workload | server | guest s/GB | server s/GB | guest s/1k ops | server s/1k ops | busy | JIT of server | JIT vCPU | server in kernel |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for job, _, desc in JOBS:
        for k in fkeys:
            m = med.get((k, job))
            if not m:
                continue
            jvm = not k.startswith("knfsd")
            w("| %s | %s | %s | %s | %s | %s | %s %% | %s | %s | %s |" % (
                desc, label(k), fmt(m["g_gb"], 1), fmt(m["s_gb"], 1), fmt(m["g_kop"], 2), fmt(m["s_kop"], 2),
                fmt(m["busy"], 0), fmt(m["jit"], 1) + " %" if jvm else "—", fmt(m["jitv"], 1) + " %" if jvm else "—",
                "—" if m["kern"] is None else fmt(m["kern"], 0) + " %"))
    w("")


def user_cpu_section(run, f, fkeys, med, tcp, tcp_label):
    """Our JVM's user-mode CPU per operation and per GB, with the kernel time beside it, and the
    ratio to our TCP server's for the same workload (issue #33's bar: RDMA at most 0.5x TCP)."""
    w = run.w
    jvm_keys = [k for k in fkeys if not k.startswith("knfsd")]
    if not any(med.get((k, job), {}).get("u_kop") is not None for k in jvm_keys for job, _, _ in JOBS):
        return
    w("#### User-mode CPU of our server on %s" % f)
    w("")
    w("Medians over the runs: *user* = our JVM's threads' CPU in user mode, less the JIT compiler threads' "
      "(compiling is not the cost of an operation; the flight recorder's threads, the lab's profiler, run for "
      "every JVM server alike and are included); *kernel* = their system time, less the compilers', which over "
      "rxe includes the device's protocol work done in the posting thread. *user vs %s* = per operation, against the same workload over %s (the bar: at most 0.5)."
      % (tcp_label, tcp_label))
    w("")
    w("| workload | server | user s/1k ops | user s/GB | kernel s/1k ops | user vs %s |" % tcp_label)
    w("|---|---|---:|---:|---:|---:|")
    for job, _, desc in JOBS:
        base = med.get((tcp, job), {}).get("u_kop")
        for k in jvm_keys:
            m = med.get((k, job))
            if not m or m.get("u_kop") is None:
                continue
            w("| %s | %s | %s | %s | %s | %s |" % (
                desc, label(k), fmt(m["u_kop"], 2), fmt(m["u_gb"], 1), fmt(m["k_kop"], 2),
                "" if k == tcp else ratio(m["u_kop"], base)))
    w("")


def nfs4_throughput_section(run, f, fkeys, med, load):
    """The NFSv4.1 throughput table of fabric f (nfs4 phase), with the console switch's row."""
    w = run.w
    sw = [r for r in run.runs if r.key == "nfs4.switch." + f and r.fio]
    if not fkeys and not sw:
        return
    w("## NFSv4.1 throughput and latency on %s" % f)
    w("")
    w("The NFSv3 tables' four workloads over NFSv4.1 (`vers=4.1`): knfsd's NFSv4.1 over RDMA on the same device "
      "(measured in its own phase, before our JVM started), nfs4j in our JVM over our TCP, and over our RDMA "
      "transport with each strategy (interleaved rounds on one mount, one shared warm-up). Median of %s; "
      "spread = (max − min) / median of MB/s. nfs4j serves from a directory of the guest's disk through Java "
      "NIO (`DirectoryFileSystem`), knfsd from the same disk in the kernel: the ratios compare the whole "
      "servers, not only the transports; *vs nfs4j TCP* is the transport's share." % (
          runs_of_fabric(run, f)))
    w("")
    loads = ["%s %.1f" % (label(k), host_load(run, load, k)) for k in fkeys if host_load(run, load, k) is not None]
    if loads:
        w("Host load (1-minute load average, mean over each server's measured runs): %s." % "; ".join(loads))
        w("")
    throughput_rows(w, med, fkeys, label, "knfsd4." + f, "nfs4.tcp", ("knfsd", "nfs4.tcp"),
                    "vs knfsd NFSv4.1", "vs nfs4j TCP")
    sws = [n for n in (fio_numbers(run.path(r.fio), "write") for r in sw) if n]
    if sws:
        w("| write 256 KiB, QD8, md5 verify, lkey→frmr switched by `rpcrdma:strategy` during one of %d jobs%s | %s | %s | %s–%s | | %s | %s | %s | | |" % (
            len(sws), " (two streams of jobs at once)" if jobs_overlap(sw) else "", label("nfs4.switch." + f), fmt(median([x["mbs"] for x in sws]), 2),
            fmt(min(x["mbs"] for x in sws), 2), fmt(max(x["mbs"] for x in sws), 2),
            fmt(median([x["iops"] for x in sws]), 0), fmt(median([x["p50"] for x in sws]), 0),
            fmt(median([x["p99"] for x in sws]), 0)))
    w("")
    user_cpu_section(run, f, fkeys, med, "nfs4.tcp", "nfs4j TCP")


def jobs_overlap(runs):
    """Whether any two of these fio runs were running at the same time (the switch's two streams)."""
    spans = sorted((float(r.t0), float(r.t1)) for r in runs if r.t0 and r.t1)
    return any(b0 < a1 for (a0, a1), (b0, b1) in zip(spans, spans[1:]))


def throughput_sections(run, ran):
    """fio's sections: NFSv3 per fabric (the servers that ran), NFSv4.1 per fabric. Returns the
    "server job" pairs without a result, and the medians of every (server, job) measured."""
    load = host_loads(run.rdir)
    # the nfs4 phase's fio (knfsd's NFSv4.1, nfs4j over TCP and RDMA): the servers that have runs
    nfs4_fio = [k for k in run.keys if k.startswith(("nfs4.", "knfsd4.")) and any(r.key == k for r in run.runs)]
    med, fio_fail = fio_medians(run, ran + nfs4_fio)
    for f in run.fabrics:
        fkeys = [k for k in ran if k.endswith("." + f) or k == "tcp"]
        if any(k.endswith("." + f) for k in fkeys):
            throughput_section(run, f, fkeys, med, load)
    if "nfs4" in run.wanted:
        for f in run.fabrics:
            fkeys = [k for k in ["knfsd4." + f, "nfs4.tcp", "nfs4.lkey." + f, "nfs4.frmr." + f] if k in nfs4_fio]
            nfs4_throughput_section(run, f, fkeys, med, load)
    return fio_fail, med


def idle_section(run):
    w, hz = run.w, run.hz
    w("## Idle: a mounted, quiet server (20 s)")
    w("")
    w("Of one vCPU, over the window: the server's threads (our JVM: the process's own user and system time, "
      "which keeps the time of a thread that ended inside the window; runs recorded before it was written: the "
      "threads alive at both ends), of them the JIT compiler's and the flight recorder's "
      "(JFR, the lab's own profiler: not part of the server), and what is left, the server's own idle cost "
      "(the figure issue #13's 'under 1 %' is about). *rpcrdma4j threads*: of that, our own threads (named "
      "rpcrdma4j-*: the transports' completion loops and acceptors, the NFS workers, the TCP service); the rest is "
      "the container (Karaf's fileinstall polling etc/ and deploy/ every second, its lock monitor) and HotSpot's "
      "housekeeping (GC, monitor deflation, periodic tasks). Runs before a column existed show —.")
    w("")
    w("| server | guest busy (of all vCPUs) | server threads | JIT | JFR | server without JIT and JFR | rpcrdma4j threads |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for r in run.of("idle"):
        try:
            secs = float(r.t1) - float(r.t0)
            gb, ga, srv, jit = [float(x) for x in (r.guest_busy, r.guest_all, r.server, r.jit)]
            process = process_ticks(r)
            if process is not None:
                srv = process
            jfr, own = opt_float(r.jfr), opt_float(r.own)
            pct = lambda v: "%.1f %%" % (100 * v / hz / secs)
            knfsd = r.key.startswith("knfsd")
            w("| %s | %.1f %% | %s | %s | %s | %s | %s |" % (
                label(r.key), 100 * gb / ga if ga else 0, pct(srv), "—" if knfsd else pct(jit),
                "—" if knfsd or jfr is None else pct(jfr),
                pct(srv) if knfsd else ("—" if jfr is None else "%.2f %%" % (100 * (srv - jit - jfr) / hz / secs)),
                "—" if knfsd or own is None else "%.2f %%" % (100 * own / hz / secs)))
        except ValueError:
            pass
    w("")


def warm_up_section(run):
    w, meta = run.w, run.meta
    w("## Warm-up")
    w("")
    w("Before its measured runs each server gets slices of all four workloads (4 s each, one fio process) until the JIT "
      "compiler threads used under 5 %% of one vCPU during a slice, at most %s s; knfsd (no JIT) gets one slice. Our RDMA "
      "server's two strategies share one warm-up per fabric (*our RDMA*), its slices alternating lkey and frmr, and "
      "are then measured in interleaved rounds on one mount (lkey's four workloads, a switch in place, frmr's, and "
      "again), so both meet the JIT in the same state.%s" %
      (meta.get("warm_max", "90"), " The baselines measured in those rounds (throughput sections) get their own "
       "warm-up first, on their own mounts." if run.info.get("baselines_in_rounds", "").strip() else ""))
    if meta.get("jvm_warm_max", "0") not in ("", "0"):
        w("")
        w("Before all of them, *our JVM* (the one Karaf JVM that serves our TCP and RDMA servers) gets its own warm-up, "
          "at most %s s (`LAB_JVM_WARM_MAX`): our TCP server and an RDMA mount of the first fabric mounted together, "
          "each slice running the four workloads over both, the RDMA strategies alternating, so that the compiler's "
          "work is done once, before the first measured run, rather than at the start of each server's." %
          meta.get("jvm_warm_max"))
    w("")
    w("| server | slices | seconds | JIT in the last slice (of one vCPU) |")
    w("|---|---:|---:|---:|")
    for r in run.of("warm"):
        try:
            w("| %s | %s | %.0f | %s |" % (label(r.key), r.slices, float(r.t1) - float(r.t0),
                                          "—" if r.key.startswith("knfsd") else r.jit_pct + " %"))
        except ValueError:
            pass
    w("")


def our_jvm_measured(key):
    """Whether a run record's key is a measured run of our JVM: not knfsd's (no JIT, no recording),
    not the strategy switch's jobs."""
    return bool(key) and not key.startswith(("knfsd", "switch", "nfs4.switch"))


def runs_jit_lines(run):
    """Issue #33's bar (c) run by run, for runs made with LAB_JIT_RERUNS (meta jit_reruns): our
    JVM's compiler threads' share of one vCPU during each measured run (the run record's ticks,
    /proc), per server, and the runs repeated because of it (unsettled records)."""
    w, reruns = run.w, run.meta.get("jit_reruns", "")
    if reruns == "":
        return
    per_key, order = {}, []
    for r in run.runs:
        if not our_jvm_measured(r.key) or r.rc != "0":
            continue
        try:
            pct = 100.0 * float(r.jit) / run.hz / (float(r.t1) - float(r.t0))
        except (ValueError, ZeroDivisionError):
            continue
        if r.key not in per_key:
            per_key[r.key] = {"pcts": [], "repeats": 0, "repeated": set()}
            order.append(r.key)
        per_key[r.key]["pcts"].append(pct)
    for u in run.of("unsettled"):
        if u.key in per_key:
            per_key[u.key]["repeats"] += 1
            per_key[u.key]["repeated"].add((u.job, u.rep))
    if not per_key:
        return
    runs = sum(len(v["pcts"]) for v in per_key.values())
    under = sum(1 for v in per_key.values() for p in v["pcts"] if p < SETTLED_PCT)
    repeats = sum(v["repeats"] for v in per_key.values())
    repeated = sum(len(v["repeated"]) for v in per_key.values())
    w("### The JIT during each measured run")
    w("")
    w("Our JVM's compiler threads' CPU in each measured run's window (its ticks in /proc, as in the CPU tables), "
      "against the bar's %.0f %% of one vCPU: **%d of %d runs under it**. A run at or above it was run again once the "
      "compilers were quiet (2 s windows, at most 30 s), at most %s times (`LAB_JIT_RERUNS`); the last attempt is "
      "the one measured, whatever its JIT: %d run(s) were repeated, %d repeat(s) in all." % (
          SETTLED_PCT, under, runs, reruns, repeated, repeats))
    w("")
    w("| server | measured runs | under %.0f %% | JIT median | JIT max | runs repeated | repeats |" % SETTLED_PCT)
    w("|---|---:|---:|---:|---:|---:|---:|")
    for k in order:
        v = per_key[k]
        w("| %s | %d | %d | %.1f %% | %.1f %% | %d | %d |" % (
            label(k), len(v["pcts"]), sum(1 for p in v["pcts"] if p < SETTLED_PCT), median(v["pcts"]),
            max(v["pcts"]), len(v["repeated"]), v["repeats"]))
    w("")


def jfr_windows(run):
    """The measured windows of our JVM [(server/job, start, end)], epoch seconds as recorded:
    fio's runs (not the switch jobs) and the idle windows."""
    windows = []
    for r in run.runs:
        if our_jvm_measured(r.key) and r.t0 and r.t1:
            windows.append((r.key + "/" + r.job, r.t0, r.t1))
    for r in run.of("idle"):
        if not r.key.startswith("knfsd"):
            windows.append((r.key + "/idle", r.t0, r.t1))
    for r in run.of("kwaits"):
        if r.rc == "0" and r.t0 and r.t1:
            windows.append((r.key + "/waits", r.t0, r.t1))
    return windows


def compile_spans(run, windows):
    """What ran when, for the compile timeline: our JVM's warm-ups and measured windows."""
    spans = []
    for r in run.of("warm"):
        if not r.key.startswith("knfsd"):
            try:
                spans.append((float(r.t0), float(r.t1), "%s warm-up" % label(r.key).replace("our ", "")))
            except ValueError:
                pass
    for name, a, b in windows:
        spans.append((float(a), float(b), label(name.split("/")[0]).replace("our ", "") + " measured"))
    return spans


def compile_verdict(measured, rows, settled):
    """Whether the JIT settled during one recording's measured runs, in words."""
    in_runs = [(r[0], r[5]) for r in rows if r[5] is not None]
    if not measured:
        return "no measured run in it"
    if not in_runs:
        return "no slice held %d s of measured runs" % MEASURED_MIN_S
    if settled is None:
        return "**not settled**: the last slice with measured runs had the JIT at %.0f %% of one vCPU during them" % (
            in_runs[-1][1])
    verdict = "**settled** from minute %.0f on: under %.0f %% of one vCPU during every measured run from there" % (
        settled, SETTLED_PCT)
    before = [pct for minute, pct in in_runs if minute < settled]
    if before:
        verdict += "; the measured runs before it had the JIT at up to %.0f %%" % max(before)
    return verdict


def compile_section(run, compstat, comps, deopts, windows, jfr_note):
    """The compile timeline of each recording (jdk.CompilerStatistics) and what the JIT compiled
    during the measured runs."""
    w = run.w
    w("## Compilation over the JVM's life (JFR)")
    w("")
    if not compstat:
        w("No jdk.CompilerStatistics in the recordings: %s." % jfr_note)
        w("")
        return
    spans = compile_spans(run, windows)
    w("HotSpot's own count of its compile time (jdk.CompilerStatistics, about once a second), per %d-minute "
      "slice of each server JVM's recording, with what ran then; *during measured runs*: the compile time that "
      "fell inside measured fio runs, per second of them (slices with under %d s of measured runs: —). *settled*: "
      "from that minute on, the JIT stayed under %.0f %% of one vCPU (the warm-up's bound) during every measured run; "
      "the JIT setting is in the header (*guest Java*). Compile time is the compiler threads' time, so it is also "
      "CPU the server did not get." % (COMPILE_SLICE_S // 60, MEASURED_MIN_S, SETTLED_PCT))
    for rec_name in sorted(compstat):
        series = compstat[rec_name]
        a, b = min(x[0] for x in series), max(x[0] for x in series)
        measured = [(float(s_), float(e)) for _, s_, e in windows if a <= float(s_) <= b]
        rows, settled = compile_timeline(series, spans, measured)
        if not rows:
            continue
        w("")
        w("**%s**: %.0f s of compiling over %.0f minutes; %s." % (
            rec_name, sum(r[1] for r in rows), rows[-1][0] + COMPILE_SLICE_S / 60, compile_verdict(measured, rows, settled)))
        w("")
        w("| minute | compile s | of one vCPU | during measured runs | compilations | what ran |")
        w("|---:|---:|---:|---:|---:|---|")
        for r in rows:
            w("| %.0f | %.1f | %.0f %% | %s | %d | %s |" % (r[0], r[1], r[2], "—" if r[5] is None else "%.1f %%" % r[5],
                                                          r[3], r[4] or "—"))
        if measured:
            jit_in_runs_table(w, comps.get(rec_name, []), deopts.get(rec_name, []), measured)
    w("")


def jit_in_runs_table(w, comps, deopts, measured):
    by_origin, reasons, secs, n, nd = jit_in_windows(comps, deopts, measured)
    w("")
    w("What it compiled while measured runs ran (%.0f s of them): %d compilations long enough for the "
      "recording (jdk.Compilation over 100 ms), %.1f s; %d deoptimizations%s." % (
          sum(e - s_ for s_, e in measured), n, secs, nd,
          (" (" + ", ".join("%s %d" % (r, c) for c, r in reasons[:5]) + ")") if reasons else ""))
    if by_origin:
        w("")
        w("| code of | compile s | compilations | of them C2 | longest (s, compilations, tier) |")
        w("|---|---:|---:|---:|---|")
        for origin, osecs, cnt, c2, longest in by_origin:
            w("| %s | %.1f | %d | %d | %s |" % (origin, osecs, cnt, c2, "<br>".join(
                "%s %.1f, %d, %s" % (t[3], t[0], t[1], t[2]) for t in longest) or "—"))


def shares(items, total, m=5):
    """The first m (count, name) items as "name N %" of total, one per line of a table cell."""
    return "<br>".join("%s %.0f %%" % (name, 100.0 * c / total) for c, name in items[:m]) or "—"


def profile_section(run, jfr, jfr_note, ran, med):
    """Where our server's time goes: JFR's samples per server and workload."""
    w = run.w
    w("## Where our server's time goes (JFR)")
    w("")
    if not jfr:
        w("No profile: %s." % jfr_note)
        w("")
        return
    w("Java Flight Recorder in our server's JVM (%s), aggregated over each workload's measured runs (%s). *leaf*: the executing "
      "method of each CPU sample; *own*: the first rpcrdma4j/dCache frame on the sampled stack; allocation: "
      "JFR's sampled estimate of bytes allocated per second, by the first frame outside the JDK." % (jfr_settings_text(run.info), jfr_note))

    ours = [k for k in ran if not k.startswith("knfsd")]
    for k in ours:
        w("")
        w("### %s" % label(k))
        w("")
        w("| workload | CPU samples | top leaf frames | top own frames | busiest threads | alloc MB/s | top allocation sites | compilations |")
        w("|---|---:|---|---|---|---:|---|---:|")
        for job, _, desc in JOBS + [("idle", "", "idle (mounted, quiet)")]:
            d = jfr.get(k + "/" + job)
            if not d:
                continue
            n = max(d.get("samples", 0), 1)
            alloc_total = max(d.get("allocated", 0), 1)
            w("| %s | %d | %s | %s | %s | %s | %s | %d |" % (
                desc, d.get("samples", 0), shares(d["leaf"], n), shares(d["own"], n, 4), shares(d["thread"], n, 4),
                fmt(d.get("allocated", 0) / 1e6 / d["seconds"] if d.get("seconds") else None, 1),
                shares(d["alloc"], alloc_total, 4), d.get("compilations", 0)))
        thread_table(w, k, jfr)
    w("")
    parts_table(w, ours, jfr, med)


def thread_table(w, key, jfr):
    """The 4 KiB jobs' CPU samples per thread (the 3 most sampled), each thread's own frames as
    shares of its own samples: what the completion loop's thread does per call, apart from the
    workers, where the per-call costs of the transport are."""
    rows = []
    for job, _, desc in JOBS:
        d = jfr.get(key + "/" + job)
        if not d or not d.get("town") or not job.startswith("rand"):
            continue
        threads = dict((name, c) for c, name in d["thread"])
        total = max(d.get("samples", 0), 1)
        for name, frames in sorted(d["town"].items(), key=lambda t: -threads.get(t[0], 0)):
            n = max(threads.get(name, 0), 1)
            rows.append("| %s | %s | %.0f %% | %s |" % (desc, name, 100.0 * threads.get(name, 0) / total, shares(frames, n, 8)))
    if rows:
        w("")
        w("Per thread, the 4 KiB jobs: each of the 3 most sampled threads' share of the CPU samples, and its own "
          "frames (as above) as shares of that thread's samples (*(no own frame)*: JDK or library code with no "
          "rpcrdma4j/dCache frame under it).")
        w("")
        w("| workload | thread | samples | top own frames of the thread |")
        w("|---|---|---:|---|")
        for r in rows:
            w(r)


def parts_table(w, keys, jfr, med):
    """What our JVM's CPU samples served, per server and workload (JfrTop's part lines): the
    program's own work, the transport's reply path the program calls, and the rest; and the
    program's share of the user-mode CPU per operation (issue #33's bar (b) is the JVM's user CPU
    over RDMA at most 0.5x our TCP's: the program's part is the same code over both transports, so
    where it alone exceeds half of TCP's whole, no transport work can meet the bar). The keys are
    NFSv3 servers (the JFR sections cover those), so the baseline is our TCP server's row."""
    rows = []
    for job, _, desc in JOBS:
        for k in keys:
            d = jfr.get(k + "/" + job)
            if not d or not d.get("part"):
                continue
            n = max(d.get("samples", 0), 1)
            got = dict((name, c) for c, name in d["part"])
            user = med.get((k, job), {}).get("u_kop")
            program = None if user is None else user * got.get("program", 0) / n
            rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                desc, label(k), *("%.0f %%" % (100.0 * got.get(p, 0) / n) for p in ("program", "reply", "rest", "cut")),
                fmt(program, 2), ratio(program, med.get(("tcp", job), {}).get("u_kop"))))
    if not rows:
        return
    w("What the CPU samples served: *program* = under the program's own `dispatchOncRpcCall` (the NFS server's "
      "work: decoding its arguments, the file system, building its result), *reply* = under oncrpc4j's `RpcCall` "
      "reply methods (the transport's reply path: encoding, the send), *rest* = neither (receiving, the "
      "completion loop or Grizzly's reading, the hand-off to a worker, the JVM's and Karaf's own threads), "
      "*cut* = a stack the recorder cut short before either. *program user* = the program's share times the "
      "user-mode CPU per operation (the table under the throughput): an estimate, as JFR samples Java code "
      "only. *program vs our TCP's user*: the program alone against our TCP server's whole user-mode CPU for "
      "the workload; the program is the same code over both transports, so where this is over 0.5 the bar "
      "of at most 0.5x our TCP's user CPU cannot be met by the transport's work alone.")
    w("")
    w("| workload | server | program | reply | rest | cut | program user s/1k ops | program vs our TCP's user |")
    w("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        w(r)
    w("")


def jfr_sections(run, ran, med):
    windows = jfr_windows(run)
    jfr, jfr_note = run_jfr(run.meta, run.rdir, windows)
    compstat = (jfr or {}).pop("_compstat", {})
    comps = (jfr or {}).pop("_comp", {})
    deopts = (jfr or {}).pop("_deopt", {})
    compile_section(run, compstat, comps, deopts, windows, jfr_note)
    profile_section(run, jfr, jfr_note, ran, med)
    save_waits(run, jfr or {})


def waits_file(key):
    """The committed file of a server's waits window (JfrTop's wait lines), beside its kprof files."""
    return "kprof/%s-randread-waits.tsv" % key


def save_waits(run, jfr):
    """Keeps each waits window's sites from the flight recording (raw/, not committed) in kprof/, so
    that the report can be written again without the recording."""
    for r in run.of("kwaits"):
        waits = jfr.get(r.key + "/waits", {}).get("wait")
        if waits:
            os.makedirs(os.path.dirname(run.path(waits_file(r.key))), exist_ok=True)
            with open(run.path(waits_file(r.key)), "w", encoding="utf-8") as f:
                f.write("".join("%d\t%s\t%s\n" % x for x in waits))


def data_checks_section(run):
    """The data checks per server. Returns the failed checks."""
    w = run.w
    w("## Data checks")
    w("")
    checks = run.of("check")
    bad = [c for c in checks if c.result != "ok"]
    by_server = {}
    for c in checks:
        by_server.setdefault(c.key, []).append(c)
    w("| server | checks passed | failed |")
    w("|---|---:|---|")
    for s, cs in by_server.items():
        f = [c for c in cs if c.result != "ok"]
        w("| %s | %d of %d | %s |" % (label(s), len(cs) - len(f), len(cs),
                                      "; ".join("%s: %s" % (c.name, c.detail) for c in f) or "none"))
    w("")
    w("Per server: files of 0, 1, 4095, 4096, 1 MiB + 3 and 64 MiB written through the mount, read back after "
      "a remount with dropped caches, md5 and size compared with the source; 300 entries created and listed "
      "after a remount (complete, names exact), 30 renamed and the directory renamed (listed again), nested "
      "mkdir/rmdir, rmdir of a non-empty directory refused, everything removed. Soft mounts (60 s, one retransmission).")
    w("")
    return bad


def fault_rows(run, with_skipped):
    w = run.w
    w("| server | fault | result | detail |")
    w("|---|---|---|---|")
    if with_skipped:
        for r in run.skipped:
            if r.keys.endswith(" faults"):
                w("| %s | all | **not run** | skipped: %s |" % (label(r.keys.split()[0]), r.why))
    for f in run.of("fault"):
        w("| %s | %s | %s | %s |" % (label(f.key), f.fault, "ok" if f.result == "ok" else "**%s**" % f.result, f.detail))


def faults_section(run):
    """The faults under a hard mount, and the fabric probes. Returns the failed faults."""
    w, meta = run.w, run.meta
    w("## Faults (hard mount)")
    w("")
    faults = run.of("fault")
    if "faults" not in run.wanted and not faults:
        w("Not run (--phases).")
    elif "faults" not in run.wanted:
        w("The NFSv3 faults: not run (--phases). The nfs4 phase's restart (below, *NFSv4.1: nfs4j restarted under "
          "a hard mount*): a 256 MiB write (dd, direct I/O) to a hard NFSv4.1 mount over RDMA, the JVM stopped in "
          "order 2 s into it and started again; the write must finish and the file, read back after a remount, "
          "match its source's md5. *client connects*: the mount's transport connect count before → after.")
        w("")
        fault_rows(run, False)
    else:
        w("Server restart on %s (`LAB_FAULT_FABRICS`), link down on %s (`LAB_LINKDOWN_FABRICS`; not on rxe by default: "
          "Debian 6.1's rxe puts its QP1, which carries the connection manager's messages, into the error state for good when "
          "a send finds no route while the interface is down, and the device then connects nothing until it is re-created). "
          % (meta.get("fault_fabrics") or "none", meta.get("linkdown_fabrics") or "none"))
        w("A 64 MiB write (dd, direct I/O) to a hard mount (`hard,timeo=50,retrans=2`); 2 s into it: *restart* = our "
          "server's JVM killed (`kill -9`) and the same assembly started again (knfsd: `rpc.nfsd 0`, 5 s, `rpc.nfsd 8` "
          "and the RDMA listener again; kernel threads take no SIGKILL); *link-down* = the fabric's dummy interface "
          "down for 5 s. The write must finish and the file, read back after a remount, match its source's md5. knfsd's faults "
          "use a second address of the fabric's interface (192.168.77.2): the kernel client shares one RPC client per "
          "server address, so a mount a fault leaves hanging cannot be the one a later server's mount reuses. "
          "*client connects*: the mount's transport connect count before → after.")
        w("")
        fault_rows(run, True)
    probes_table(run)
    w("")
    return [f for f in faults if f.result != "ok"]


def probes_table(run):
    w = run.w
    if not run.of("probe"):
        return
    w("")
    w("**Fabric health.** After each server's faults, and before the conformance suite, `rping` (rdmacm-utils) "
      "connects to a listener on the fabric's address and exchanges one ping: the device can still set up a "
      "connection for what runs next. A failed probe after knfsd's faults (knfsd listens on the wildcard "
      "address) or after our server stopped re-creates the device (`rdma link delete/add`) and probes again.")
    w("")
    w("| fabric | when | result | detail |")
    w("|---|---|---|---|")
    for p in run.of("probe"):
        w("| %s | %s | %s | %s |" % (p.fabric, p.when, "ok" if p.result == "ok" else "**%s**" % p.result, p.detail))
    for r in run.of("info"):
        if r.key.startswith("recreate."):
            w("| %s | device re-created | | %s |" % (r.key.split(".", 1)[1], r.value))


def peer_section(run):
    """The hostile peer's TAP cases per fabric. Returns the fabrics it failed on."""
    w = run.w
    w("## Hostile peer (lab/peer)")
    w("")
    peers = run.of("peer")
    bad_peer = []
    if "rdma" not in run.wanted:
        w("Not run (--phases).")
    elif not peers:
        w("No result recorded.")
    for p in peers:
        if p.status == "missing":
            w("- %s: %s" % (p.fabric, p.output))
            continue
        w("- %s: exit %s%s" % (p.fabric, p.rc, " (%s)" % p.output if not p.output.endswith(".tap") else ""))
        if p.rc != "0":
            bad_peer.append(p.fabric)
        try:
            tap = [l for l in open(run.path(p.output), encoding="utf-8", errors="replace").read().splitlines()
                   if re.match(r"^(not )?ok \d+", l) or l.startswith("1..")]
        except OSError:
            tap = []
        w("")
        w("  | case | result |")
        w("  |---|---|")
        for l in tap:
            m = re.match(r"^(not ok|ok) (\d+)\s*-?\s*(.*)$", l)
            if m:
                w("  | %s %s | %s |" % (m.group(2), m.group(3).replace("|", "\\|"), "ok" if m.group(1) == "ok" else "**not ok**"))
        w("")
    w("")
    return bad_peer


def backchannel_section(run):
    w = run.w
    w("## NFSv4.1 callbacks over the RDMA back channel (RFC 8167)")
    w("")
    w("nfs4j's CREATE_SESSION calls the client back (CB_NULL) on the session's back channel, over RDMA the "
      "client's own connection, and waits for the answer before it replies. Our transport's counters of the "
      "open connection(s), read through `rpcrdma:connections -v` while the lkey mount of each fabric was up; "
      "both must be above 0. *CB_RECALL* rows: read after a delegation was recalled (below); CB_NULL and "
      "CB_RECALL, each answered, make at least 2 calls and as many replies.")
    w("")
    if not run.of("backchannel"):
        w("Not recorded.")
    else:
        w("| server | BACKWARD_CALLS | BACKWARD_REPLIES | BACKWARD_TIMEOUTS | BACKWARD_CALLS_FAILED | output |")
        w("|---|---:|---:|---:|---:|---|")
        for b in run.of("backchannel"):
            if not b.calls.isdigit():  # a committed folder whose recorder kept the listing's words, not counters
                output = next((x for x in (b.replies, b.timeouts, b.calls_failed, b.output) if x.endswith(".txt")), "")
                w("| %s | not parsed | | | | %s |" % (label(b.key), output))
                continue
            w("| %s | %s | %s | %s | %s | %s |" % (label(b.key), b.calls, b.replies, b.timeouts, b.calls_failed, b.output))
    w("")


def recorded_only(run, heading, kind, intro):
    """A section only the runs that recorded its kind have (a later addition): its heading and introduction, or
    nothing at all when the run has no record of this kind. Returns the records (empty when none)."""
    records = run.of(kind)
    if records:
        run.w(heading)
        run.w("")
        run.w(intro)
        run.w("")
    return records


def recorded(run, heading, kind, intro=None, table_head=()):
    """Writes a section's heading, then "Not recorded." when the run has no record of this kind,
    else the section's introduction and its table's header lines.

    Returns the run's records of the kind (empty when there are none)."""
    run.w(heading)
    run.w("")
    records = run.of(kind)
    if not records:
        run.w("Not recorded.")
    elif intro is not None:
        run.w(intro)
        run.w("")
    for line in table_head if records else ():
        run.w(line)
    return records


def recall_section(run):
    w = run.w
    recalls = recorded(
        run, "### A delegation recalled over the RDMA back channel (CB_RECALL)", "recall",
        "The kernel client mounts nfs4j over RDMA, writes a file and reads it six times (nfs4j offers a read "
          "delegation on a client's third OPEN of a file within 120 s, its adaptive heuristic); then a second "
          "client (the same kernel over TCP, its NFSv4 client made under another host name, so nfs4j sees another "
          "client owner) appends to the file: nfs4j sends CB_RECALL over the first client's RDMA back channel and "
          "answers the second NFS4ERR_DELAY until the delegation is returned. *DELEGRETURN*: the RDMA mount's "
          "count (mountstats) before and after the conflicting open; *open*: its exit status and time; the "
        "back-channel counters of our connection after it.",
        ("| server | strategy | DELEGRETURN | conflicting open (rc, s) | BACKWARD_CALLS | BACKWARD_REPLIES |",
         "|---|---|---|---|---:|---:|"))
    for r in recalls:
        # a committed folder may hold the listing's first words here instead of counters: shown as unparsed
        num = lambda x: x if x.isdigit() else "not parsed (see the output file)"
        w("| %s | %s | %s → %s | %s, %s s | %s | %s |" % (label(r.key), r.strategy, r.delegreturn_before,
                                                        r.delegreturn_after, r.open_rc, r.open_s, num(r.calls),
                                                        num(r.replies)))
    w("")


def recovery_section(run):
    w = run.w
    recov = recorded(
        run, "## NFSv4.1: nfs4j restarted under a hard mount", "recovery",
        "A hard NFSv4.1 mount over RDMA (`hard,timeo=50,retrans=2`): the six source files written, then a 256 MiB "
          "write (dd, direct I/O) and 2 s into it the JVM stopped in order (SIGTERM; our bundle keeps nfs4j's client "
          "records in `ClientRecoveryFile` under `stateDirectory`) and started again. nfs4j's grace period is one "
          "lease (%s s here) and ends early once every recorded client has reclaimed. *stop*, *start*: seconds "
          "until the JVM was gone, and until it listened on RDMA and nfs4j served again; *recovery*: from then "
          "until a new file could be created through the mount (nfs4j refuses new state with NFS4ERR_GRACE during "
          "its grace period); *RECLAIM_COMPLETE*, *OPEN*: the mount's counts (mountstats) before and after; "
          "*grace*: from nfs4j's start to its log line \"NFSv4 grace period over\"; *reclaimed*: RECLAIM_COMPLETE "
          "sent and the grace period over before the lease. The write's own result is in *Faults*; the files "
        "written before are data checks of the same key." % run.info.get("nfs4_lease", "?"),
        ("| server | stop s | start s | recovery s (rc) | write in flight at the stop | RECLAIM_COMPLETE | OPEN | grace s"
         " | reclaimed | records | strategy | more |", "|---|---:|---:|---:|---|---|---|---:|---|---|---|---|"))
    for r in recov:
        if r.status != "ok":  # a failed restart records why in place of the stop time
            w("| %s | **%s**: %s | | | | | | | | | | |" % (label(r.key), r.status, r.stop_s))
        else:
            w("| %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label(r.key), r.stop_s, r.start_s, r.recovery_s, r.probe_rc, r.inflight, r.reclaim_complete, r.open,
                r.grace_s, r.reclaimed, r.records.replace("|", "\\|"), r.strategy, r.more or "—"))
    w("")


def transports_section(run):
    w = run.w
    transports = recorded(run, "## `rpcrdma:transports` after the RDMA workloads", "transports")
    with_rounds = {t.fabric[:-len(".rounds")] for t in transports if t.fabric.endswith(".rounds")}
    for t in transports:
        try:
            text = open(run.path(t.output), encoding="utf-8", errors="replace").read()
        except OSError:
            text = "(no output)"
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).strip()
        if t.fabric.endswith(".rounds"):
            # lab runs after 2026-12-06-0959 (issue #33): the listing right after the measured
            # rounds, before the parallel mounts restart the transport and its counters
            w("%s, after the measured rounds (the counters the figures below are per call of):" % t.fabric[:-len(".rounds")])
        else:
            w("%s (Karaf 4.4.10 `bin/client` under `script`'s pseudo-terminal):" % t.fabric)
        w("")
        w("```")
        w("\n".join(text.splitlines()[:120]) or "(no output)")
        w("```")
        w("")
        # per call only of the counters of the measured rounds where they were listed apart
        per_call = None if t.fabric in with_rounds else hand_off_per_call(text)
        if per_call:
            w(per_call)
            w("")


HOST_CALLS = re.compile(r"Host server calls: (\d+) dispatched,.*; workers woken (\d+) times(?:, (\d+) added beside blocked calls)?"
                        r"(?:; (\d+) with a kept AUTH_SYS credential)?")
COUNTER_ROW = re.compile(r"^\s*([A-Z][A-Z_0-9]+)\s*\|\s*(\d+)\s*$")


def hand_off_per_call(text):
    """From `rpcrdma:transports -v`: what the loops and the workers cost per call delivered, over every
    workload and strategy of the run; None for a listing without the counters (before -v)."""
    text = text.replace("\r", "")
    counters = {}
    for line in text.splitlines():
        m = COUNTER_ROW.match(line)
        if m:
            counters[m.group(1)] = counters.get(m.group(1), 0) + int(m.group(2))
    calls = counters.get("CALLS_DELIVERED", 0)
    host = HOST_CALLS.search(text)
    if not calls or not host:
        return None
    per = lambda name: counters.get(name, 0) / calls
    dispatched, woken = int(host.group(1)), int(host.group(2))
    # the listings of run 2026-12-06-0959 (the host server's running-workers target, measured and
    # reverted: issue #33) also count the workers added beside blocked calls
    added = "" if host.group(3) is None else "; %s workers were added beside calls taken for blocked" % host.group(3)
    # from 2026-12-06 (issue #33) the host keeps decoded AUTH_SYS credentials by their bytes
    if host.group(4) is not None:
        added += ("; %.2f of the calls dispatched came with a kept AUTH_SYS credential (no decoding)"
                  % (int(host.group(4)) / max(1, dispatched)))
    line = ("Per call delivered over RDMA (%d calls, every workload and strategy of the run): completion-loop sleeps "
            "%.2f, calls run on a loop thread %.2f (of them sent to the workers after all %.2f), SEND posts %.2f, "
            "completions %.2f; the host's workers were woken %.2f times per call they were handed "
            "(%d wake-ups, %d calls dispatched, less those run on a loop thread)%s."
            % (calls, per("LOOP_SLEEPS"), per("CALLS_RUN_ON_LOOP"), per("KEPT_CALLS_SENT_TO_WORKERS"),
               per("SEND_POSTS"), per("COMPLETIONS"),
               woken / max(1, dispatched - counters.get("CALLS_RUN_ON_LOOP", 0) + counters.get("KEPT_CALLS_SENT_TO_WORKERS", 0)),
               woken, dispatched, added))
    per_reply = posts_and_completions_per_reply(counters)
    return line if per_reply is None else line + " " + per_reply


def posts_and_completions_per_reply(counters):
    """What a reply costs the send queue (issue #33: one doorbell and one completion per RPC), from the counters
    of listings since the transport counts completions by kind (SEND_COMPLETIONS); None before."""
    sends = counters.get("SENDS", 0)
    if "SEND_COMPLETIONS" not in counters or not sends:
        return None
    inline, reply_chunk = counters.get("REPLIES_INLINE", 0), counters.get("REPLIES_REPLY_CHUNK", 0)
    write_chunk = counters.get("REPLIES_WRITE_CHUNK", 0)
    posts = counters.get("SEND_POSTS", 0) - counters.get("READ_POSTS", 0)
    completions = counters["SEND_COMPLETIONS"] + counters.get("WRITE_COMPLETIONS", 0)
    return ("Per SEND (%d: %d replies inline, %d of them with a write chunk, %d through a reply chunk, the rest backward "
            "calls): send-queue posts %.2f (SEND_POSTS less the READ chains' %d), send-side completions %.2f (the SENDs' "
            "own %d, the RDMA WRITEs' own %d): a post is one ibv_post_send, and each kind needs at least one post and "
            "one completion, so totals of 1.00 mean one each for every kind."
            % (sends, inline, write_chunk, reply_chunk, posts / sends, counters.get("READ_POSTS", 0), completions / sends,
               counters["SEND_COMPLETIONS"], counters.get("WRITE_COMPLETIONS", 0)))


LATENCY_CONNECTION = re.compile(r"^(\S+) \((?:open|closing)\)$")
LATENCY_LINE = re.compile(r"^reply latency \(.*?\): count (\d+)(?:, p50 (\S+), p90 (\S+), p99 (\S+), p99\.9 (\S+), max (\S+))?$")


def latency_rows(text):
    """Each connection's reply latency in a `rpcrdma:connections -v` listing: (remote address, count,
    p50, p90, p99, p99.9, max), the percentiles as printed (µs, bucket upper bounds; "" when the count is 0)."""
    rows, connection = [], None
    for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "").splitlines():
        line = line.strip()
        m = LATENCY_CONNECTION.match(line)
        if m:
            connection = m.group(1)
            continue
        m = LATENCY_LINE.match(line)
        if m and connection:
            rows.append((connection,) + tuple(g or "" for g in m.groups()))
            connection = None
    return rows


def latency_section(run):
    """Per-connection reply latency after the RDMA workloads; nothing at all when the run recorded none."""
    w = run.w
    recs = recorded_only(run, "## Per-connection latency (receive to reply SEND)", "latency",
                         "Each open RPC-over-RDMA connection of our server, read with `rpcrdma:connections -v` after the server's "
                         "measured fio rounds (QD16 and QD32), before its unmount: the time from the handling of a call's receive "
                         "completion to the post of its reply's SEND, counted since the connection opened (the mount's warm-up and "
                         "every round of every strategy). Percentiles and max in µs are the upper bounds of histogram buckets "
                         "(16 per power of two): *p99 < 992* means 99 % of the replies took less than 992 µs.")
    if not recs:
        return
    w("| server | connection | replies | p50 µs | p99 µs | max µs |")
    w("|---|---|---:|---:|---:|---:|")
    for r in recs:
        try:
            text = open(run.path(r.output), encoding="utf-8", errors="replace").read()
        except OSError:
            w("| %s | (no output: %s) | | | | |" % (label(r.key), r.output))
            continue
        rows = latency_rows(text)
        if not rows:
            w("| %s | (no reply latency in %s) | | | | |" % (label(r.key), r.output))
        for conn, count, p50, _p90, p99, _p999, mx in rows:
            w("| %s | %s | %s | %s | %s | %s |" % (label(r.key), conn, count, p50 or "—", p99 or "—", mx or "—"))
    w("")
    parallel_table(run)


# ------------------------------------------------------------------ kernel profile (perf, kprof records)
PERF_EVENT_COUNT = re.compile(r"^# Event count \(approx\.\): (\d+)")
IDLE_COMMS = ("swapper",)
# the command that times perf's window (lab/guest/workload kprofile), not the server
WINDOW_COMMS = ("bash", "sleep", "awk", "date")


def perf_flat_rows(text):
    """The rows of a flat `perf report --sort comm,dso,sym` (cpu-clock): (comm, dso, symbol, share 0..1) and
    the event count (ns of CPU sampled), or ([], 0). The columns are cut where the header's dotted line has
    its gaps, since thread names hold spaces (C2 CompilerThre)."""
    total, spans, rows = 0, None, []
    for line in text.splitlines():
        m = PERF_EVENT_COUNT.match(line)
        if m:
            total = int(m.group(1))
        if line.startswith("# ....."):
            spans = [(mm.start() - 1, mm.end()) for mm in re.finditer(r"\.+", line)]
            spans = [(max(a, 0), b) for a, b in spans]
            continue
        if spans is None or line.startswith("#") or not line.strip():
            continue
        cols = [line[a:b + 1].strip() for a, b in spans[:-1]] + [line[spans[-1][0]:].strip()]
        if len(cols) < 3 or not cols[0].endswith("%"):
            continue
        try:
            share = float(cols[0].rstrip("%")) / 100
        except ValueError:
            continue
        rows.append((cols[1], cols[2], cols[3] if len(cols) > 3 else "", share))
    return rows, total


# x86_64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl) of the calls a JVM server makes
X86_64_SYSCALLS = {
    0: "read", 1: "write", 3: "close", 5: "fstat", 6: "lstat", 7: "poll", 8: "lseek", 9: "mmap", 10: "mprotect",
    11: "munmap", 12: "brk", 13: "rt_sigaction", 14: "rt_sigprocmask", 15: "rt_sigreturn", 16: "ioctl",
    17: "pread64", 18: "pwrite64", 19: "readv", 20: "writev", 21: "access", 23: "select", 24: "sched_yield",
    28: "madvise", 35: "nanosleep", 39: "getpid", 41: "socket", 42: "connect", 43: "accept", 44: "sendto",
    45: "recvfrom", 46: "sendmsg", 47: "recvmsg", 72: "fcntl", 74: "fsync", 75: "fdatasync", 87: "unlink",
    89: "readlink", 96: "gettimeofday", 186: "gettid", 202: "futex", 217: "getdents64", 228: "clock_gettime",
    229: "clock_getres", 230: "clock_nanosleep", 232: "epoll_wait", 233: "epoll_ctl", 257: "openat",
    262: "newfstatat", 270: "pselect6", 271: "ppoll", 281: "epoll_pwait", 284: "eventfd", 290: "eventfd2",
    295: "preadv", 296: "pwritev", 302: "prlimit64", 318: "getrandom", 332: "statx", 435: "clone3",
}


def perf_trace_calls(text):
    """The JVM's system calls in the profiled window: lines "count<TAB>thread name<TAB>number" (the
    workload's count of raw_syscalls:sys_enter events) -> {system call: {thread name: calls}}."""
    calls = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0].isdigit() or not parts[2].isdigit():
            continue
        count, thread, nr = int(parts[0]), parts[1].strip(), int(parts[2])
        if thread in WINDOW_COMMS:
            continue
        name = X86_64_SYSCALLS.get(nr, "#%d" % nr)
        calls.setdefault(name, collections.Counter())[thread] += count
    return calls


USER_DSOS = ("[unknown]", "[vdso]", "[vsyscall]", "[heap]", "[stack]")


USER_OBJECTS = ("JIT code", "libjvm", "libc", "verbs", "other")


def user_object(dso):
    """The USER_OBJECTS index of a user-mode object of perf's table."""
    if dso.startswith("[JIT]"):
        return 0
    if dso.startswith("libjvm"):
        return 1
    if dso.startswith(("libc.", "libc-", "ld-linux", "libpthread")):
        return 2
    if dso.startswith(("libdisni", "libibverbs", "librdmacm", "librxe", "libsiw")):
        return 3
    return 4


# Where a thread enters the kernel, by perf's inclusive (children) share of the frame: its system calls
# (__x64_sys_*, Linux 6.1 x86_64), the exit path of every system call (do_syscall_64 less the calls'
# own frames: entry, and rescheduling and signals on the way back to user mode), interrupts and page faults.
KERNEL_ENTRIES = {
    "asm_sysvec_reschedule_ipi": "reschedule interrupt (another CPU woke a thread here)",
    "asm_sysvec_apic_timer_interrupt": "timer interrupt",
    "asm_sysvec_call_function_single": "function-call interrupt",
    "asm_sysvec_call_function": "function-call interrupt",
    "asm_common_interrupt": "device interrupt",
    "asm_exc_page_fault": "page fault",
}
# a system call's own frame: the table's wrapper (__x64_sys_write, Linux 6.1) or, where a newer kernel
# inlined it, what it calls (__do_sys_newfstatat, ksys_write); a call's largest spelling counts
SYSCALL_FRAME = re.compile(r"^\[k\] (?:__x64_sys_|__do_sys_|__se_sys_|ksys_)(\w+)$")


def perf_children_rows(text):
    """The rows of `perf report --children --sort comm,sym` (callchains recorded): (comm, symbol, inclusive
    share 0..1: the samples with that frame anywhere on their stack) and the event count."""
    rows, total = perf_flat_rows(text)
    # perf_flat_rows reads the first column as the share and the rest in order: Self, Command, Symbol
    return [(comm, sym, share) for _self, comm, sym, share in rows], total


def kernel_entries(rows):
    """{thread group: {entry: inclusive share}} for the threads that made system calls (user processes:
    kernel threads enter no system call): each system call by name, "system call entry and exit" (do_syscall_64
    less its calls) and the KERNEL_ENTRIES."""
    groups = {}
    syscalls = collections.Counter()  # thread group: do_syscall_64's share
    calls = {}  # (thread, call): the largest share of the call's spellings
    for comm, sym, share in rows:
        if comm in IDLE_COMMS or comm in WINDOW_COMMS:
            continue
        group = thread_group(comm)
        g = groups.setdefault(group, collections.Counter())
        m = SYSCALL_FRAME.match(sym)
        if m:
            calls[(comm, m.group(1))] = max(share, calls.get((comm, m.group(1)), 0.0))
        elif sym == "[k] do_syscall_64":
            syscalls[group] += share
        elif sym.startswith("[k] ") and sym[4:] in KERNEL_ENTRIES:
            g[KERNEL_ENTRIES[sym[4:]]] += share
    in_calls = collections.Counter()
    for (comm, call), share in calls.items():
        groups[thread_group(comm)][call + "()"] += share
        in_calls[thread_group(comm)] += share
    out = {}
    for group, g in groups.items():
        if syscalls[group] <= 0:
            continue
        entries = dict(g)
        if syscalls[group] > in_calls[group]:
            entries["system call entry and exit (rescheduling, signals)"] = syscalls[group] - in_calls[group]
        out[group] = entries
    return out


def is_kernel(dso):
    """perf's object of a sample in kernel mode: the kernel ([kernel.kallsyms]) or a module ([rdma_rxe],
    [sunrpc]); JIT-compiled code ([JIT] tid N), [unknown] and the vDSO run in user mode."""
    return dso.startswith("[") and dso not in USER_DSOS and not dso.startswith("[JIT]")


def thread_group(comm):
    """A thread name with its number taken off (rpcrdma4j-nfs-3 -> rpcrdma4j-nfs-*, nfsd -> nfsd)."""
    return re.sub(r"[-#:/ ]?\d+$", "-*", comm) if re.search(r"\d$", comm) else comm


def kprof_section(run):
    """One profiled random-read job per server (kprof records); nothing at all when the run recorded none."""
    w = run.w
    recs = recorded_only(run, "## Where a random read's CPU goes, the kernel included (perf)", "kprof",
                         "After each server's measured runs, one more random 4 KiB read job (QD32), and in its middle a window of "
                         "`perf record -a -g` over the whole guest (cpu-clock, 199 Hz per vCPU: the client, fio, the soft device and the "
                         "server) and then, for our JVM, one counting its system calls (the raw_syscalls:sys_enter "
                         "tracepoint). CPU µs per READ = the row's share of the samples × the "
                         "CPU time they stand for ÷ the READ calls the client made in the window. *kernel* is the "
                         "kernel and its modules (`[kernel.kallsyms]`, `[rdma_rxe]`, ...); "
                         "idle (`swapper`) is left out. Thread names are grouped with their numbers taken off. Raw: `kprof/`, with "
                         "the callers of every entry over 2 % in `*-callers.txt`.")
    for r in recs:
        try:
            text = open(run.path(r.output), encoding="utf-8", errors="replace").read()
        except OSError:
            text = ""
        rows, total = perf_flat_rows(text)
        # by thread and object, every sample (the symbol table leaves out the rows under 0.3 %)
        try:
            by_dso, _ = perf_flat_rows(open(run.path(r.output[:-len(".txt")] + "-dso.txt"), encoding="utf-8",
                                            errors="replace").read())
        except OSError:
            by_dso = []
        ops = int(r.ops or 0)
        if not rows or not total or ops <= 0 or r.rc not in ("", "0"):
            w("%s: no profile (perf exit %s, %s READ calls; %s)." % (label(r.key), r.rc or "?", r.ops or "?", r.output))
            w("")
            continue
        per_op = total / 1e3 / ops  # µs of sampled CPU per READ for a share of 1.0
        busy = [x for x in rows if x[0] not in IDLE_COMMS]
        whole = [x for x in (by_dso or rows) if x[0] not in IDLE_COMMS]
        kern = sum(x[3] for x in whole if is_kernel(x[1]))
        w("### %s" % label(r.key))
        w("")
        w("%d READs in %.1f s; busy CPU per READ %.0f µs (kernel %.0f µs, the rest user mode%s)."
          % (ops, float(r.t1) - float(r.t0), sum(x[3] for x in whole) * per_op, kern * per_op,
             "" if by_dso else "; rows under 0.3 % are not listed, so the sums are short"))
        w("")
        groups = collections.OrderedDict()
        for comm, dso, _sym, share in whole:
            g = groups.setdefault(thread_group(comm), [0.0] * (2 + len(USER_OBJECTS)))
            if is_kernel(dso):
                g[0] += share
            else:
                g[1] += share
                g[2 + user_object(dso)] += share
        w("User mode by object: *JIT code* = HotSpot's compiled Java (`[JIT]`, from the JVM's perf map), *verbs* = "
          "libdisni, libibverbs and the provider (librxe, libsiw), *other* = the rest (the interpreter's and "
          "stubs' `[unknown]`, libnio, the vDSO, fio's own binary).")
        w("")
        w("| threads | kernel µs/READ | user µs/READ | %s |" % " | ".join(USER_OBJECTS))
        w("|---|---:|---:|%s" % ("---:|" * len(USER_OBJECTS)))
        for name, g in sorted(groups.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:10]:
            w("| %s | %s |" % (name, " | ".join("%.0f" % (x * per_op) for x in g)))
        w("")
        w("| threads | object | symbol | share | µs/READ |")
        w("|---|---|---|---:|---:|")
        for comm, dso, sym, share in sorted(busy, key=lambda x: -x[3])[:15]:
            w("| %s | %s | `%s` | %.1f %% | %.1f |" % (comm, dso, sym.replace("|", "\\|"), 100 * share, share * per_op))
        w("")
        entries_table(run, r, groups, per_op)
        trace_ops = int(r.trace_ops or 0)
        if r.trace:
            try:
                calls = perf_trace_calls(open(run.path(r.trace), encoding="utf-8", errors="replace").read())
            except OSError:
                calls = {}
            if calls and trace_ops > 0:
                w("System calls of our JVM per READ (raw_syscalls:sys_enter, %d READs in %.1f s; recording them slows the server, "
                  "so read counts, not times):" % (trace_ops, float(r.t2) - float(r.t1b or r.t1)))
                w("")
                w("| system call | per READ | threads making most of them |")
                w("|---|---:|---|")
                for name, by in sorted(calls.items(), key=lambda kv: -sum(kv[1].values()))[:12]:
                    tops = collections.Counter()
                    for t, c in by.items():
                        tops[thread_group(t)] += c
                    w("| %s | %.2f | %s |" % (name, sum(by.values()) / trace_ops,
                                              ", ".join("%s %.2f" % (t, c / trace_ops) for t, c in tops.most_common(3))))
                w("")
            else:
                w("System calls: not counted (perf exit %s, %s READs; %s)." % (r.trace_rc or "?", r.trace_ops or "?", r.trace))
                w("")
        waits_table(run, r.key)


def entries_table(run, r, groups, per_op):
    """The kernel time of the profiled job's user processes (our JVM, fio) by where they entered the kernel
    (kprof's *-entries.txt, perf's inclusive shares); nothing when the run has no such file (before 2026-12-07)."""
    try:
        text = open(run.path(r.output[:-len(".txt")] + "-entries.txt"), encoding="utf-8", errors="replace").read()
    except OSError:
        return
    rows, total = perf_children_rows(text)
    entries = kernel_entries(rows)
    if not entries or not total:
        return
    w = run.w
    w("Kernel time of the processes by where they entered the kernel (`perf report --children` of the same samples: "
      "each row counts every sample with that frame on its stack, so an interrupt taken inside a system call counts "
      "in both rows; *system call entry and exit* is do_syscall_64's samples outside the calls' own frames: rescheduling and "
      "signals on the way back). *of its kernel time*: against the thread group's kernel µs/READ above.")
    w("")
    w("| threads | entry | µs/READ | of its kernel time |")
    w("|---|---|---:|---:|")
    flat = [(group, entry, share) for group, by in entries.items() for entry, share in by.items()]
    for group, entry, share in sorted(flat, key=lambda x: (-x[2], x[0], x[1]))[:16]:
        kernel = groups.get(group, [0.0])[0]
        w("| %s | %s | %.0f | %s |" % (group, entry, share * per_op,
                                       "%.0f %%" % (100 * share / kernel) if kernel > 0 else "—"))
    w("")


def waits_table(run, key):
    """Where our JVM's threads waited in the profiled job's waits window (kwaits record, JfrTop's wait
    lines): parks and contended monitor enters per READ, by thread and site; nothing without a record."""
    w = run.w
    rec = [x for x in run.of("kwaits") if x.key == key]
    if not rec:
        return
    r = rec[-1]
    ops = int(r.ops or 0)
    waits = []
    try:
        with open(run.path(waits_file(key)), encoding="utf-8") as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) == 3 and c[0].isdigit():
                    waits.append((int(c[0]), c[1], c[2]))
    except OSError:
        pass
    if r.rc != "0" or ops <= 0 or not waits:
        w("Where its threads waited: not recorded (jcmd JFR.start exit %s, %s READs, %d sites in the recording)."
          % (r.rc or "?", r.ops or "?", len(waits)))
        w("")
        return
    w("Where our JVM's threads waited per READ (JFR: every jdk.ThreadPark and contended jdk.JavaMonitorEnter, with "
      "stacks, in a third window of %d READs in %.1f s; *park* is LockSupport.park, an idle thread's wait included, "
      "*monitor* a synchronized block another thread held; the site's first frames past the JDK's lock classes, "
      "innermost first):" % (ops, float(r.t1) - float(r.t0)))
    w("")
    w("| per READ | thread | site |")
    w("|---:|---|---|")
    for count, thread, site in sorted(waits, key=lambda x: -x[0]):
        w("| %.2f | %s | %s |" % (count / ops, thread, site.replace("|", "\\|")))
    w("")


def bucket_micros(text):
    """A percentile as the listing prints it (992, >67108864 for the overflow bucket) as a number to compare, or None."""
    m = re.match(r"^>?(\d+)$", text or "")
    return int(m.group(1)) + (1 if text.startswith(">") else 0) if m else None


def parallel_table(run):
    """The parallel mounts (parallel records): per fabric the connections listed while N mounts ran fio at
    once, each mount's IOPS and each connection's p99, as min and max so that an unfair share shows."""
    recs = run.of("parallel")
    if not recs:
        return
    w = run.w
    jobs = run.of("pjob")
    w("Parallel mounts (`parallel`): our RDMA server mounted N times at once after its measured rounds, each mount "
      "at a server address of its own (the Linux client shares one connection among the mounts of one address, "
      "whatever nosharecache or rsize), one fio random 4 KiB read at QD32 per mount, all started together; the "
      "listing read while they were still mounted. Their rows in the table above (*our RDMA, parallel mounts*) count "
      "only that load: the connections opened with those mounts. *connections* counts every connection listed (of them, how "
      "many came from the mounts' addresses); the p99 range is over the connections with replies.")
    w("")
    w("| server | mounts | connections (from the mounts) | IOPS per mount min | max | p99 µs per connection min | max |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for r in recs:
        iops = []
        for j in jobs:
            if j.key != r.key:
                continue
            n = fio_numbers(run.path(j.fio), "read") if j.rc == "0" else None
            iops.append(n["iops"] if n else None)
        got = [x for x in iops if x is not None]
        try:
            text = open(run.path(r.output), encoding="utf-8", errors="replace").read()
        except OSError:
            text = ""
        p99s = [row[4] for row in latency_rows(text) if row[4] and bucket_micros(row[4]) is not None]
        p99s.sort(key=bucket_micros)
        iops_min = fmt(min(got), 0) if got else "—"
        iops_max = fmt(max(got), 0) if got else "—"
        if got and len(got) < len(iops):
            iops_min += " (%d of %d jobs failed)" % (len(iops) - len(got), len(iops))
        w("| %s | %s | %s (%s) | %s | %s | %s | %s |" % (
            label(r.key), r.mounts, r.connections, r.own, iops_min, iops_max,
            p99s[0] if p99s else "—", p99s[-1] if p99s else "—"))
    w("")


def conformance_section(run):
    """The DiSNI conformance suite per fabric. Returns whether it passed (or was not asked for)."""
    w = run.w
    w("## DiSNI verbs provider conformance suite")
    w("")
    conf = run.of("conformance")
    conf_ok = True
    if "conformance" not in run.wanted:
        w("Not run (--phases).")
    elif not conf and not any(r.keys.startswith("conformance.") for r in run.skipped):
        w("**No result recorded** (the guest stopped before it?)")
        conf_ok = False
    else:
        for r in run.skipped:
            if r.keys.startswith("conformance."):
                w("%s: **not run**, skipped (%s)." % (r.keys.split(".")[1], r.why))
                w("")
        w("`DisniConformanceTest` (the abstract `VerbsProviderConformanceTest` of the rpcrdma4j-verbs test-jar with "
          "the DiSNI fixture), JUnit console launcher on the guest's JDK, `-Drpcrdma4j.disni.address=` the fabric's address.")
        w("")
        w("| fabric | found | passed | failed | skipped | aborted | exit | first skip/abort reason |")
        w("|---|---:|---:|---:|---:|---:|---:|---|")
        for r in conf:
            if r.status == "missing":  # the reason in place of the counts
                w("| %s | **not available**: %s | | | | | | |" % (r.fabric, r.found))
                continue
            w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r.fabric, r.found, r.passed, r.failed, r.skipped, r.aborted,
                                                             r.rc, r.reason.replace("|", "\\|")))
            if not (r.rc == "0" and r.failed in ("0", "") and r.passed not in ("", "0")):
                conf_ok = False
        failed_tests = run.of("conformance-failed")
        if failed_tests:
            w("")
            w("Failed:")
            w("")
            for r in failed_tests:
                w("- %s `%s`: %s" % (r.fabric, r.test, r.message))
    w("")
    return conf_ok


def time_section(run):
    w, meta = run.w, run.meta
    w("## Time")
    w("")
    w("| step | seconds |")
    w("|---|---:|")
    for k, lab in [("image_s", "guest image: debootstrap + mkfs (%s)" % meta.get("image_state", "")), ("prepare_s", "host preparation (kit, siw.ko, checks)"),
                   ("boot_s", "guest boot to init (guest clock)"), ("qemu_s", "qemu run, boot to power-off"),
                   ("total_s", "lab/run in all")]:
        if meta.get(k):
            w("| %s | %s |" % (lab, meta[k]))
    for p in run.of("phase"):
        try:
            w("| guest phase %s (exit %s) | %.0f |" % (p.name, p.rc, float(p.t1) - float(p.t0)))
        except ValueError:
            pass
    for t in run.of("time"):
        try:
            w("| %s: %s | %.0f |" % (label(t.key), t.step, float(t.t1) - float(t.t0)))
        except ValueError:
            pass
    w("")


def verdict_section(run, problems, missing):
    """The verdict. Returns the exit status: 0 passed, 1 a problem, 3 only something not available."""
    w = run.w
    conf_missing = any(r.status == "missing" for r in run.of("conformance"))
    if problems:
        status = 1
    elif missing or run.skipped or conf_missing:
        status = 3
    else:
        status = 0
    w("## Verdict")
    w("")
    if status == 0:
        w("All data checks and faults passed; every server ran.")
    elif status == 3:
        w("All data checks that ran passed; not available or not run: %s." % ", ".join(
            [label(m) for m in missing] + (["conformance suite"] if conf_missing else [])
            + ["%s (skipped: %s)" % (r.keys, r.why) for r in run.skipped if r.keys not in missing]))
    else:
        w("**FAILED**: " + "; ".join(problems) + ".")
    w("")
    w("Raw results next to this report: `%s/` (results.tsv, fio/*.json, perf/*.txt, console.log, transports-*.txt, peer-*.tap; not "
      "committed: raw/ with the flight recordings and Karaf logs)." % os.path.basename(run.rdir))
    return status


def report(args):
    rdir, out = args[0], args[1]
    run = Run(rdir, dict(a.split("=", 1) for a in args[2:]))
    header(run)
    missing, failed = servers_section(run)
    # the servers fio measured (the nfs4 phase's run the data checks only)
    ran = [k for k in run.keys if run.status(k) == "available" and not k.startswith(("nfs4.", "knfsd4."))]
    perftest_section(run)
    fio_fail, med = throughput_sections(run, ran)
    idle_section(run)
    warm_up_section(run)
    runs_jit_lines(run)
    jfr_sections(run, ran, med)
    bad = data_checks_section(run)
    bad_faults = faults_section(run)
    bad_peer = peer_section(run)
    if "nfs4" in run.wanted:
        backchannel_section(run)
        recall_section(run)
        recovery_section(run)
    transports_section(run)
    latency_section(run)
    kprof_section(run)
    conf_ok = conformance_section(run)
    time_section(run)
    problems = []
    if bad:
        problems.append("%d data check(s) failed" % len(bad))
    if failed:
        problems.append("server(s) failed: " + ", ".join(failed))
    if fio_fail:
        problems.append("fio without result: " + ", ".join(fio_fail))
    if bad_faults:
        problems.append("fault(s) failed: " + ", ".join("%s %s" % (f.key, f.fault) for f in bad_faults))
    last_probe = {p.fabric: p for p in run.of("probe")}
    sick = [f for f, p in last_probe.items() if p.result != "ok"]
    if sick:
        problems.append("fabric(s) unable to connect at the last probe: " + ", ".join(sick))
    if bad_peer:
        problems.append("hostile peer failed on " + ", ".join(bad_peer))
    if not conf_ok:
        problems.append("conformance suite did not pass")
    status = verdict_section(run, problems, missing)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(run.lines) + "\n")
    for p in problems:
        print("lab/run: " + p, file=sys.stderr)
    return status


def check_schema(args):
    """Whether the workload script args[0] and lab/records.py agree on the record kinds and their
    fields: 0 when they do, else 1 with what differs."""
    with open(args[0], encoding="utf-8") as f:
        problems = records.check_workload(f.read())
    for p in problems:
        print("labtool check-schema: " + p, file=sys.stderr)
    if not problems:
        print("labtool check-schema: %s writes the %d record kinds of lab/records.py" % (args[0], len(records.KINDS)))
    return 1 if problems else 0


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    sys.exit({"rdma-check": rdma_check, "check-schema": check_schema}.get(cmd, report)(rest))
