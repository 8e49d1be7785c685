"""The records of the lab's results.tsv: one schema for what lab/guest/workload writes and what
lab/labtool.py reads (Python 3 standard library only).

The guest's workload writes one record a line, its fields separated by tabs, the first field the
record's kind (`rec KIND FIELD...` in lab/guest/workload). KINDS names every kind's fields in
order. A kind's first `required` fields (after the kind) are in every record of it: a line with
fewer is left out with a warning. The later ones were added over time, or the workload leaves them
off when there is nothing to say (a server not mounted, a suite missing), so records lack them:
such a record reads them as "" (as if the workload had written an empty field), which the report
shows as "—" or leaves out. A line with more fields than its kind has is warned about and read
without the extra ones; a line of a kind not here is warned about and left out.

Adding a kind (or a field): write it in the workload with `rec`, add it here (a new field at the
end, optional), read it by name in labtool.py; `labtool.py check-schema lab/guest/workload` (run by
lab/test_labtool.py) fails while the two disagree.
"""
import collections
import re
import sys

# cpu_delta in the workload: the CPU clock ticks of a measured window, the guest's (/proc/stat:
# busy and all, every vCPU) and the server's threads (cpu_snap: all of them, of them the C1/C2
# compilers', the GC's, the flight recorder's, their system time, and our own rpcrdma4j-* threads';
# then the JVM process's user and system time, which keep the time of threads that ended, and the
# compilers' user time; knfsd: its nfsd threads, with jit, gc and jfr 0). One `$(cpu_delta ...)`
# argument is these fields; records of earlier folders end after "own" or "sys".
CPU_FIELDS = ("guest_busy", "guest_all", "server", "jit", "gc", "jfr", "sys", "own", "proc_user", "proc_sys", "jit_user")

# fields: the names of a kind's fields after the kind, in order; required: how many of them every
# record of the kind has (0 where the report has always read a short record's missing fields as
# empty); doc: what a record says.
Kind = collections.namedtuple("Kind", "fields required doc")

KINDS = {
    "info": Kind(("key", "value"), 2,
                 "a fact about the guest (kernel, cpus, clk_tck, java, fio, nfs4_lease), a JVM crash "
                 "(karaf-crash, hs-err), a fabric device re-created (recreate.FABRIC), a strategy switch "
                 "(its server key) or the end (done)"),
    "fabric": Kind(("fabric", "status", "detail"), 2, "a soft-RDMA fabric: ok, failed or missing"),
    "probe": Kind(("fabric", "when", "result", "detail"), 0, "rping over a fabric: ok or FAIL"),
    "perf": Kind(("fabric", "tool", "output", "rc", "t0", "t1"), 4,
                 "one perftest client (ib_write_bw, ib_read_bw, ib_send_lat); t0, t1: epoch seconds"),
    "server": Kind(("key", "status", "detail"), 2, "a server (knfsd.rxe, tcp, lkey.siw, nfs4.frmr.rxe, ...): "
                                                   "available, failed or missing"),
    "check": Kind(("key", "name", "result", "detail"), 3, "a data check of a server: ok or FAIL"),
    "run": Kind(("key", "job", "rep", "fio", "rc", "t0", "t1") + CPU_FIELDS, 2,
                "one measured fio job: its JSON output, exit code, epoch window and CPU ticks"),
    "unsettled": Kind(("key", "job", "rep", "attempt", "t0", "t1", "jit_pct"), 7,
                      "a measured fio job run again: our JVM's compiler threads used jit_pct % of one vCPU "
                      "during it (attempt: 1, 2, ...; the job's run record is the last attempt)"),
    "warm": Kind(("key", "slices", "t0", "t1", "jit_pct"), 5,
                 "a server's warm-up: slices run, epoch window, JIT % of one vCPU in the last slice"),
    "idle": Kind(("key", "t0", "t1") + CPU_FIELDS, 7, "20 s of a mounted, quiet server: epoch window, CPU ticks"),
    "time": Kind(("key", "step", "t0", "t1"), 4, "a timed step of a server (or of karaf, the JVM's warm-up, a "
                                                 "fabric): guest uptime seconds"),
    "phase": Kind(("name", "t0", "t1", "rc"), 4, "a guest phase: uptime seconds and exit code"),
    "skipped": Kind(("keys", "why"), 0, "what the time limit skipped (space-separated keys)"),
    "fault": Kind(("key", "fault", "result", "detail"), 0, "a fault under a hard mount: ok or FAIL"),
    "peer": Kind(("fabric", "status", "output", "rc"), 0,
                 "the hostile peer: ran (output: its TAP file) or missing (output: why)"),
    "transports": Kind(("fabric", "output"), 1, "the rpcrdma:transports listing's file"),
    "latency": Kind(("key", "output"), 2, "the rpcrdma:connections -v listing (each open connection's reply "
                                          "latency) read after a server's measured fio rounds: its file"),
    "kprof": Kind(("key", "job", "output", "rc", "ops", "t0", "t1", "trace", "trace_rc", "trace_ops", "t2", "t1b"), 7,
                  "one profiled random-read job after a server's measured runs: perf record -a over the guest "
                  "(its flat report's file, exit code, the client's READ calls in the window, epoch window), "
                  "then our JVM's system calls counted (their file, exit code, READ calls, end, start)"),
    "kwaits": Kind(("key", "rc", "ops", "t0", "t1"), 3,
                   "where our JVM's threads waited in a third window of the profiled random-read job (JFR's park "
                   "and contended monitor-enter events, read from the JVM's recording by the window): jcmd "
                   "JFR.start's exit code, the client's READ calls in the window, epoch window"),
    "pjob": Kind(("key", "mount", "address", "fio", "rc"), 5,
                 "one fio job of the parallel mounts (parallel.FABRIC): the mount's number, its server "
                 "address, its JSON output, its exit code"),
    "parallel": Kind(("key", "mounts", "connections", "own", "output"), 5,
                     "the parallel mounts (parallel.FABRIC): how many were mounted, how many connections "
                     "rpcrdma:connections -v listed while they were, how many of those came from the mounts' "
                     "addresses, the listing's file"),
    "backchannel": Kind(("key", "calls", "replies", "timeouts", "calls_failed", "output"), 0,
                        "our connection's back-channel counters (rpcrdma:connections -v) and the listing's file"),
    "recall": Kind(("key", "delegreturn_before", "delegreturn_after", "open_rc", "open_s", "calls", "replies",
                    "strategy"), 0, "a delegation recalled by a second client's conflicting open"),
    "recovery": Kind(("key", "status", "stop_s", "start_s", "recovery_s", "probe_rc", "inflight", "reclaim_complete",
                      "open", "grace_s", "reclaimed", "records", "strategy", "more"), 0,
                     "nfs4j restarted under a hard mount: ok, or FAIL with the reason in stop_s"),
    "conformance": Kind(("fabric", "status", "found", "passed", "failed", "skipped", "aborted", "rc", "reason"), 0,
                        "the DiSNI conformance suite on a fabric: result (JUnit's counts) or missing (found: why)"),
    "conformance-failed": Kind(("fabric", "test", "message"), 1, "a failed test of the conformance suite"),
}

# Kinds that some committed results folders hold and nothing reads: not warned about.
RETIRED = {"fio": "one fio job (superseded by run)"}

for _k, _v in KINDS.items():
    assert 0 <= _v.required <= len(_v.fields), _k
TYPES = {k: collections.namedtuple(re.sub(r"\W", "_", k).capitalize(), v.fields) for k, v in KINDS.items()}


class Records:
    """A results.tsv read once: `of(kind)` its records in order, as named tuples of strings;
    `warnings` what did not fit the schema ("line N: ...")."""

    def __init__(self):
        self.by_kind = {k: [] for k in KINDS}
        self.warnings = []

    def of(self, kind):
        return self.by_kind[kind]


def parse_line(line, number, records):
    """Adds one line of results.tsv to `records`, or a warning naming its line number."""
    f = line.rstrip("\n").split("\t")
    kind = KINDS.get(f[0])
    if kind is None:
        if f[0] not in RETIRED:
            records.warnings.append("line %d: unknown record kind %r" % (number, f[0]))
        return
    values = f[1:]
    if len(values) < kind.required:
        records.warnings.append("line %d: %s record with %d fields after its kind, at least %d expected (%s): "
                                "left out" % (number, f[0], len(values), kind.required, ", ".join(kind.fields)))
        return
    if len(values) > len(kind.fields):
        records.warnings.append("line %d: %s record with %d fields after its kind, at most %d expected (%s): "
                                "the rest ignored" % (number, f[0], len(values), len(kind.fields), ", ".join(kind.fields)))
        values = values[:len(kind.fields)]
    records.by_kind[f[0]].append(TYPES[f[0]](*(values + [""] * (len(kind.fields) - len(values)))))


def parse(lines):
    """Records of the lines of a results.tsv (blank lines skipped)."""
    records = Records()
    for number, line in enumerate(lines, 1):
        if line.strip():
            parse_line(line, number, records)
    return records


def read(path):
    """Records of the results.tsv at `path` (none when it does not exist); warnings to stderr."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            records = parse(f)
    except FileNotFoundError:
        return Records()
    for w in records.warnings:
        print("labtool: %s %s" % (path, w), file=sys.stderr)
    return records


# ------------------------------------------------------------------ the workload's side
def _words(text, i):
    """The shell words of the simple command starting at text[i] (up to an unquoted ;, &, |, },
    newline or #), each as its source text. Quotes, $( ... ) and ${ ... } may nest; a backslash-newline
    continues the command."""
    words, cur, stack = [], "", []
    while i < len(text):
        c, top = text[i], (stack[-1] if stack else None)
        if top == "'":
            if c == "'":
                stack.pop()
        elif c == "\\" and text.startswith("\n", i + 1) and top is None:  # a continued line
            if cur:
                words.append(cur)
            cur = ""
            i += 2
            continue
        elif c == "\\":
            cur += text[i:i + 2]
            i += 2
            continue
        elif text.startswith("$(", i) or text.startswith("${", i):
            stack.append(text[i + 1])
            cur += text[i:i + 2]
            i += 2
            continue
        elif top == '"':
            if c == '"':
                stack.pop()
        elif c in "'\"(":
            stack.append(c)
        elif (c == ")" and top == "(") or (c == "}" and top == "{"):
            stack.pop()
        elif top is None and c in ";&|}\n#":
            break
        elif top is None and c in " \t":
            if cur:
                words.append(cur)
            cur = ""
            i += 1
            continue
        cur += c
        i += 1
    if cur:
        words.append(cur)
    return words


REC_CALL = re.compile(r"(?:^|[\s;&|{(!])rec[ \t]+([A-Za-z][\w.-]*)")


def workload_records(script):
    """The `rec` calls of a workload script: [(line number, kind, fields or None)], fields the
    number of tab-separated fields the call writes (the kind included) when the words show it:
    one per word, len(CPU_FIELDS) for a `$(cpu_delta ...)`; None when a word may expand to
    several fields (an unquoted $@, $*)."""
    text = script
    out = []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for number, start in enumerate(starts, 1):
        end = text.find("\n", start)
        line = text[start:end if end >= 0 else len(text)]
        if line.lstrip().startswith("#"):
            continue
        for m in REC_CALL.finditer(line):
            words = _words(text, start + m.start(1))
            n = 0
            for w in words:
                if re.fullmatch(r'"?\$\(cpu_delta [^)]*\)"?', w):
                    n += len(CPU_FIELDS)
                elif re.search(r'(^|[^"\\])\$[@*]', w):
                    n = None
                    break
                else:
                    n += 1
            out.append((number, m.group(1), n))
    return out


def check_workload(script):
    """What the workload's `rec` calls and KINDS disagree on: a list of lines, empty when none."""
    problems = []
    seen = set()
    for number, kind, n in workload_records(script):
        seen.add(kind)
        k = KINDS.get(kind)
        if k is None:
            problems.append("workload line %d: record kind %r is not in lab/records.py" % (number, kind))
        elif n is not None and not (k.required <= n - 1 <= len(k.fields)):
            problems.append("workload line %d: %s record with %d fields after its kind; lab/records.py: %d to %d (%s)" % (
                number, kind, n - 1, k.required, len(k.fields), ", ".join(k.fields)))
    for kind in KINDS:
        if kind not in seen:
            problems.append("lab/records.py: record kind %r is written nowhere in the workload" % kind)
    return problems
