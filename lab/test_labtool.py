"""Tests of lab/labtool.py and lab/records.py (python3 -m unittest lab/test_labtool.py).

The committed reports are the reference: labtool.py report, given a committed results folder and
the arguments lab/run gave it, must write the committed .md again, byte for byte.
"""
import contextlib
import glob
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest

LAB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, LAB)
import labtool  # noqa: E402
import records  # noqa: E402

# lab/run's arguments to `labtool.py report` for the results folders whose committed .md the
# current labtool.py writes. lab/run does not store them in the folder: they are read back from
# the committed report (its header and Time table print them; phases: the sections it says were not
# run). Two of them are host state at the end of the run (host_load, date) and are reproducible only
# this way. The older folders' reports came from earlier labtool versions (2026-12-05-1801 and -1740
# lack the CB_RECALL paragraph and sections added in 80f3bfc) and are not compared.
REPORT_ARGS = {
    "2026-12-05-1923-1575c41": {
        "name": "2026-12-05-1923-1575c41", "sha": "1575c41", "dirty": "0", "date": "2026-12-05 20:38 UTC",
        "phases": "fabrics,knfsd4,nfs4", "fabrics": "rxe", "tcg": "single", "smp": "2",
        "host_cpu": "AMD EPYC, 2 cores",
        "host_load": "1/5/15-min load average 9.83 7.04 4.58 at the start, 3.40 4.71 6.66 at the end",
        "fio_runtime": "20", "fio_reps": "3", "server_jit": "tiered",
        "assembly": "karaf-assembly/target/assembly built 2026-12-05 19:22 UTC; rpcrdma4j artifacts from "
                    "/tmp/m2-h1/repository",
        "rdma_component": "org.rpcrdma4j.transport.osgi.RdmaTransportComponent in rpcrdma4j-transport-0.1.0-SNAPSHOT.jar",
        "warm_max": "90", "jvm_warm_max": "360", "image_state": "cached dc4a8eb611f1; -cpu max,avx=off,avx2=off",
        "image_s": "614", "prepare_s": "118", "boot_s": "28", "qemu_s": "4504", "total_s": "4623"},
    "2026-12-05-1911-5255ddc": {
        "name": "2026-12-05-1911-5255ddc", "sha": "5255ddc", "dirty": "0", "date": "2026-12-05 20:33 UTC",
        "phases": "tcp,rdma,faults,conformance", "fabrics": "rxe siw", "tcg": "single", "smp": "2",
        "host_cpu": "AMD EPYC, 2 cores",
        "host_load": "1/5/15-min load average 0.44 1.63 1.92 at the start, 3.66 6.74 7.94 at the end",
        "fio_runtime": "10", "fio_reps": "1", "server_jit": "tiered",
        "assembly": "karaf-assembly/target/assembly built 2026-12-05 19:11 UTC; rpcrdma4j artifacts from "
                    "/tmp/m2-lab/repository",
        "rdma_component": "org.rpcrdma4j.transport.osgi.RdmaTransportComponent in rpcrdma4j-transport-0.1.0-SNAPSHOT.jar",
        "siw": "siw.ko built out of tree from linux-source-6.1 6.1.192-3 for 6.1.0-50-amd64, with "
               "lab/siw/accept-installs-callbacks-first.patch",
        "warm_max": "90", "jvm_warm_max": "60", "fault_fabrics": "rxe", "linkdown_fabrics": "siw",
        "image_state": "cached dc4a8eb611f1; -cpu max,avx=off,avx2=off",
        "image_s": "614", "prepare_s": "22", "boot_s": "17", "qemu_s": "4894", "total_s": "4917"},
}

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


class CommittedReports(unittest.TestCase):
    def test_reports_are_written_again_byte_for_byte(self):
        for name, args in REPORT_ARGS.items():
            with self.subTest(results=name), tempfile.TemporaryDirectory() as tmp:
                rdir = os.path.join(LAB, "results", name)
                with open(rdir + ".md", encoding="utf-8") as f:
                    expected = f.read()
                _, got, err = report(rdir, dict(args, lab_dir=LAB), tmp)
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


if __name__ == "__main__":
    unittest.main()
