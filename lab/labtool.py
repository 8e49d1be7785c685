#!/usr/bin/env python3
"""Host-side helpers of lab/run (Python 3 standard library only).

  labtool.py rdma-check JAR_DIR... --features FEATURES_XML
      Whether the Karaf side can serve RPC-over-RDMA: some bundle declares a DS component with the
      configuration PID org.rpcrdma4j.transport, and the features to install for it exist. Prints
      shell assignments: RDMA_MISSING (empty when available, else the reason) and RDMA_FEATURES.
  labtool.py report RESULTS_DIR REPORT_MD key=value...
      Writes the Markdown report from RESULTS_DIR/results.tsv and RESULTS_DIR/fio/*.json.
      Exit status: 0 all checks passed, 1 a data check failed (or a server failed), 3 only
      "not available" servers (or conformance) missing.
"""
import glob
import json
import os
import re
import shlex
import sys
import xml.etree.ElementTree as ET
import zipfile

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


SERVERS = ["knfsd", "tcp", "rdma-lkey", "rdma-frmr"]
LABELS = {"knfsd": "knfsd (kernel, RDMA)", "tcp": "rpcrdma4j TCP", "rdma-lkey": "rpcrdma4j RDMA lkey",
          "rdma-frmr": "rpcrdma4j RDMA frmr", "rdma-switch": "rpcrdma4j RDMA lkey→frmr"}
JOBS = [("seqwrite", "write", "sequential write 1 MiB, QD16"), ("seqread", "read", "sequential read 1 MiB, QD16"),
        ("randread", "read", "random read 4 KiB, QD32"), ("randwrite", "write", "random write 4 KiB, QD32")]


def fio_numbers(path, direction):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
        data = json.loads(text[text.index("{"):])
        job = data["jobs"][0][direction]
        return job["bw_bytes"] / 1e6, job["iops"], data["jobs"][0].get("error", 0)
    except (OSError, ValueError, KeyError, IndexError):
        return None


def fmt(x, nd=1):
    return "—" if x is None else ("%.*f" % (nd, x))


def ratio(a, b):
    return "—" if a is None or b in (None, 0) else "%.2f×" % (a / b)


def report(args):
    rdir, out = args[0], args[1]
    meta = dict(a.split("=", 1) for a in args[2:])
    recs = []
    tsv = os.path.join(rdir, "results.tsv")
    if os.path.exists(tsv):
        recs = [line.rstrip("\n").split("\t") for line in open(tsv, encoding="utf-8", errors="replace") if line.strip()]
    info = {r[1]: r[2] for r in recs if r[0] == "info" and len(r) > 2}
    servers = {r[1]: (r[2], r[3] if len(r) > 3 else "") for r in recs if r[0] == "server"}
    checks = [r for r in recs if r[0] == "check"]
    phases = [r for r in recs if r[0] == "phase"]
    times = [r for r in recs if r[0] == "time"]
    conf = [r for r in recs if r[0] == "conformance"]
    wanted = [p for p in meta.get("phases", "knfsd,tcp,rdma,conformance").split(",")]
    L = []
    w = L.append
    w("# Lab: the Linux kernel NFS client over soft-RDMA — %s" % meta.get("name", ""))
    w("")
    w("`lab/run` of commit `%s`%s, %s. NFSv3, Linux kernel client and servers in one Debian 12 guest "
      "under qemu TCG (software CPU): absolute numbers measure the emulated CPU; compare the columns of "
      "one run." % (meta.get("sha", "?"), " (tree with uncommitted changes by others)" if meta.get("dirty") == "1" else "",
                    meta.get("date", "")))
    w("")
    w("| | |")
    w("|---|---|")
    w("| guest kernel | %s |" % info.get("kernel", "?"))
    w("| guest CPU | %s (%s vCPU, %s MiB) |" % (info.get("cpu", "?"), info.get("cpus", "?"), info.get("mem_mib", "?")))
    w("| host CPU | %s |" % meta.get("host_cpu", "?"))
    w("| guest Java | %s |" % info.get("java", "?"))
    crashes = [r[2] for r in recs if r[0] == "info" and r[1] == "karaf-crash"]
    if crashes:
        w("| Karaf JVM crashes | %s |" % "; ".join(crashes))
    w("| fio | %s, %s s per job, 64 MiB file, direct I/O, libaio |" % (info.get("fio", "?"), meta.get("fio_runtime", "?")))
    w("| RDMA device | %s |" % info.get("rxe", "?"))
    w("| assembly | %s |" % meta.get("assembly", "?"))
    w("| RDMA component | %s |" % (meta.get("rdma_component") or "none"))
    w("")
    w("## Servers")
    w("")
    w("| server | status | what |")
    w("|---|---|---|")
    missing, failed = [], []
    for s in SERVERS:
        ph = "rdma" if s.startswith("rdma") else s
        if ph not in wanted:
            w("| %s | not run (--phases) | |" % LABELS[s])
            continue
        st, what = servers.get(s, ("failed", "no result recorded (guest stopped early?)"))
        if st == "missing":
            missing.append(s)
            w("| %s | **not available** | %s |" % (LABELS[s], what))
        elif st == "available":
            w("| %s | ran | %s |" % (LABELS[s], what))
        else:
            failed.append(s)
            w("| %s | **FAILED** | %s |" % (LABELS[s], what))
    w("")
    w("## Throughput (fio)")
    w("")
    w("MB/s = 10^6 bytes per second. Ratios: this server's MB/s over knfsd's and over rpcrdma4j TCP's.")
    w("")
    w("| workload | server | MB/s | IOPS | vs knfsd | vs our TCP |")
    w("|---|---|---:|---:|---:|---:|")
    fio_fail = []
    for job, direction, desc in JOBS:
        base = {}
        for s in SERVERS:
            n = fio_numbers(os.path.join(rdir, "fio", "%s-%s.json" % (s, job)), direction)
            base[s] = n[0] if n else None
        for s in SERVERS:
            if servers.get(s, ("",))[0] != "available":
                continue
            n = fio_numbers(os.path.join(rdir, "fio", "%s-%s.json" % (s, job)), direction)
            if n is None:
                fio_fail.append("%s %s" % (s, job))
                w("| %s | %s | no result | | | |" % (desc, LABELS[s]))
                continue
            w("| %s | %s | %s | %s | %s | %s |" % (desc, LABELS[s], fmt(n[0]), fmt(n[1], 0),
                                                 "" if s == "knfsd" else ratio(n[0], base.get("knfsd")),
                                                 "" if s in ("knfsd", "tcp") else ratio(n[0], base.get("tcp"))))
    sw = fio_numbers(os.path.join(rdir, "fio", "rdma-switch.json"), "write")
    if sw:
        w("| write 256 KiB, QD8, md5 verify, lkey→frmr switched during it | %s | %s | %s | | |"
          % (LABELS["rdma-switch"], fmt(sw[0]), fmt(sw[1], 0)))
    w("")
    w("## Data checks")
    w("")
    bad = [c for c in checks if len(c) > 3 and c[3] != "ok"]
    by_server = {}
    for c in checks:
        by_server.setdefault(c[1], []).append(c)
    w("| server | checks passed | failed |")
    w("|---|---:|---|")
    for s, cs in by_server.items():
        f = [c for c in cs if c[3] != "ok"]
        w("| %s | %d of %d | %s |" % (LABELS.get(s, s), len(cs) - len(f), len(cs),
                                      "; ".join("%s: %s" % (c[2], c[4] if len(c) > 4 else "") for c in f) or "none"))
    w("")
    w("Per server: files of 0, 1, 4095, 4096, 1 MiB + 3 and 64 MiB written through the mount, read back after "
      "a remount with dropped caches, md5 and size compared with the source; 1,000 entries created and listed "
      "after a remount (complete, names exact), 100 renamed and the directory renamed (listed again), nested "
      "mkdir/rmdir, rmdir of a non-empty directory refused, everything removed.")
    w("")
    w("## DiSNI verbs provider conformance suite on rxe0")
    w("")
    conf_ok = True
    if "conformance" not in wanted:
        w("Not run (--phases).")
    elif not conf:
        w("**No result recorded** (the guest stopped before it?)")
        conf_ok = False
    elif conf[0][1] == "missing":
        w("**Not available**: %s" % conf[0][2])
    else:
        r = conf[0] + [""] * 8
        found, okn, failn, skip, abort, rc, why = r[2:9]
        w("`DisniConformanceTest` (the abstract `VerbsProviderConformanceTest` of the rpcrdma4j-verbs test-jar with "
          "the DiSNI fixture), JUnit console launcher on the guest's JDK, `-Drpcrdma4j.disni.address=192.168.77.1`.")
        w("")
        w("| found | passed | failed | skipped | aborted | exit |")
        w("|---:|---:|---:|---:|---:|---:|")
        w("| %s | %s | %s | %s | %s | %s |" % (found, okn, failn, skip, abort, rc))
        failed_tests = [r for r in recs if r[0] == "conformance-failed"]
        if failed_tests:
            w("")
            w("Failed:")
            w("")
            for r in failed_tests:
                w("- `%s`: %s" % (r[1], r[2] if len(r) > 2 else ""))
        if why:
            w("")
            w("First skip reason: %s" % why)
        conf_ok = rc == "0" and failn in ("0", "") and okn not in ("", "0")
    w("")
    w("## Costs")
    w("")
    w("| step | seconds |")
    w("|---|---:|")
    for k, label in [("image_s", "guest image: debootstrap + mkfs (%s)" % meta.get("image_state", "")), ("prepare_s", "host preparation (kit, checks)"),
                     ("boot_s", "guest boot to init (guest clock)"), ("qemu_s", "qemu run, boot to power-off"),
                     ("total_s", "lab/run in all")]:
        if meta.get(k):
            w("| %s | %s |" % (label, meta[k]))
    for p in phases:
        try:
            w("| guest phase %s (exit %s) | %.0f |" % (p[1], p[4], float(p[3]) - float(p[2])))
        except (ValueError, IndexError):
            pass
    for t in times:
        try:
            w("| %s: %s | %.0f |" % (LABELS.get(t[1], t[1]), t[2], float(t[4]) - float(t[3])))
        except (ValueError, IndexError):
            pass
    w("")
    status = 0
    problems = []
    if bad:
        problems.append("%d data check(s) failed" % len(bad))
    if failed:
        problems.append("server(s) failed: " + ", ".join(failed))
    if fio_fail:
        problems.append("fio without result: " + ", ".join(fio_fail))
    if not conf_ok:
        problems.append("conformance suite did not pass")
    if problems:
        status = 1
    elif missing or (conf and conf[0][1] == "missing"):
        status = 3
    w("## Verdict")
    w("")
    if status == 0:
        w("All data checks passed; every server ran.")
    elif status == 3:
        w("All data checks that ran passed; not available: %s." % ", ".join(
            missing + (["conformance suite"] if conf and conf[0][1] == "missing" else [])))
    else:
        w("**FAILED**: " + "; ".join(problems) + ".")
    w("")
    w("Raw results next to this report: `%s/` (results.tsv, fio/*.json, console.log)." % os.path.basename(rdir))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")
    for p in problems:
        print("lab/run: " + p, file=sys.stderr)
    return status


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    sys.exit(rdma_check(rest) if cmd == "rdma-check" else report(rest))
