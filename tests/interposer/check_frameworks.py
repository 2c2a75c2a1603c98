#!/usr/bin/env python3
"""The interposer in an unmodified PyTorch or CuPy program: framework_mm.py run without and with
LD_PRELOAD=libsgemm_cublas.so on the same shapes, then compared.

  check_frameworks.py --framework torch|cupy --interposer LIB (--db DB | --dump JSON
                      --tune-binary SGEMM_TUNE) --shapes CSV [--bench BENCH.json] [--samples N]
                      [--report FILE]

--dump: an exported database (tuner_db/*.json), imported into a temporary database first.

Checks, each printed with its figures:
  - both runs' results within the FP32 tolerance of an FP64 product;
  - every problem the dispatcher has a route of its own for (sgemmDescribe, asked through
    libsgemm_dispatch beside LIB) is served, per SGEMM_CUBLAS_LOG; every other one passes through;
  - with TF32 allowed (torch only): every call passes through, and the results are bit-identical;
  - with --bench (`sgemm-tune bench --json`): each served problem's speed-up over the run without
    the preload, next to the bench's ratio (reported; the test does not time).
Exit 0 when every check holds, 1 when one fails, 77 when the framework or a GPU is missing."""
import argparse
import csv
import ctypes
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
TOLERANCE = 4 * 2.0**-24  # configs/measure.yaml's tolerance_factor x 2^-24
HERE = os.path.dirname(os.path.abspath(__file__))


def run(framework, shapes, out, samples, env_extra, tf32=False):
    env = dict(os.environ, **env_extra)
    cmd = [sys.executable, os.path.join(HERE, "framework_mm.py"), "--framework", framework,
           "--shapes", shapes, "--out", out, "--samples", str(samples)] + (["--tf32"] if tf32 else [])
    rc = subprocess.run(cmd, env=env).returncode
    if rc == SKIP:
        sys.exit(SKIP)
    if rc != 0:
        sys.exit(f"{' '.join(cmd)}: exit {rc}")
    with open(out) as f:
        return json.load(f)


class Checks:
    """Each check printed as it is made, FAIL-marked when it does not hold; the exit code and an
    optional report file at the end."""

    def __init__(self):
        self.lines, self.failed = [], 0

    def say(self, text, ok=True):
        self.lines.append(("" if ok else "FAIL ") + text)
        print(self.lines[-1], flush=True)
        self.failed += not ok

    def finish(self, report):
        if report:
            with open(report, "w") as f:
                f.write("\n".join(self.lines) + "\n")
        return 1 if self.failed else 0


def database(a, tmp):
    """--db as given, or --dump imported into a new database in tmp by --tune-binary."""
    if a.db:
        return a.db
    if not (a.dump and a.tune_binary):
        sys.exit("give --db, or --dump and --tune-binary")
    db = os.path.join(tmp, "tuning.db")
    subprocess.run([a.tune_binary, "--quiet", "import", a.dump, "--db", db], check=True)
    return db


def read_log(path):
    with open(path) as f:
        lines = f.read().splitlines()
    rows = list(csv.DictReader(lines[1:]))
    return lines[0], rows


def routed(lib_dir, db, shapes):
    """Per problem, whether the dispatcher has a route of its own (sgemmDescribe's source)."""
    lib = ctypes.CDLL(os.path.join(lib_dir, "libsgemm_dispatch.so"))
    handle = ctypes.c_void_p()
    if lib.sgemmCreate(ctypes.byref(handle), db.encode()) != 0:
        sys.exit(f"sgemmCreate({db}) failed")
    buf = ctypes.create_string_buffer(4096)
    own = {}
    for m, n, k, ta, tb in shapes:
        lda, ldb = (m if ta == "N" else k), (k if tb == "N" else n)
        s = lib.sgemmDescribe(handle, int(ta == "T"), int(tb == "T"), m, n, k, lda, ldb, m, buf,
                              len(buf))
        if s != 0:
            sys.exit(f"sgemmDescribe {m}x{n}x{k}: status {s}")
        own[f"{ta}{tb} {m}x{n}x{k}"] = json.loads(buf.value)["source"] != "cublas"
    return own


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", choices=["torch", "cupy"], required=True)
    ap.add_argument("--interposer", required=True)
    ap.add_argument("--db")
    ap.add_argument("--dump")
    ap.add_argument("--tune-binary")
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--bench")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--report")
    a = ap.parse_args()
    checks = Checks()
    say = checks.say
    sys.path.insert(0, HERE)
    from framework_mm import problems
    shapes = problems(a.shapes)
    tmp = tempfile.mkdtemp(prefix="sgemm_interposer_")
    log = os.path.join(tmp, "calls.csv")
    plain = run(a.framework, a.shapes, os.path.join(tmp, "plain.json"), a.samples, {})
    a.db = database(a, tmp)  # after the first run, which skips quickly without the framework
    preload = {"LD_PRELOAD": os.path.abspath(a.interposer), "SGEMM_TUNER_DB": a.db,
               "SGEMM_CUBLAS_LOG": log}
    served = run(a.framework, a.shapes, os.path.join(tmp, "served.json"), a.samples, preload)
    header, calls = read_log(log)
    say(f"log: {header}")
    own = routed(os.path.dirname(os.path.abspath(a.interposer)), a.db, shapes)
    bench = {}
    if a.bench:
        with open(a.bench) as f:
            for p in json.load(f)["problems"]:
                bench[p["problem"].split(" lda")[0]] = p["ratio"]
    for p, s in zip(plain, served):
        name = p["problem"]
        mnk = name.split()[1].split("x")
        # The FP64 reference products of framework_mm.py pass through as "not FP32 data".
        rows = [c for c in calls if [c["m"], c["n"], c["k"]] == mnk
                and c["transa"] + c["transb"] == name[:2] and c["reason"] != "not FP32 data"]
        actions = {c["action"] for c in rows}
        want = "served" if own[name] else "passed"
        speedup = p["median_us"] / s["median_us"]
        say(f"{name}: error {p['error']:.2e} / {s['error']:.2e}, {want} "
            f"(log: {','.join(sorted(actions)) or 'no call'}; "
            f"{'; '.join(c['reason'] for c in rows if c['reason'])}), "
            f"{p['median_us']:.1f} -> {s['median_us']:.1f} us, speed-up {speedup:.2f}"
            + (f" (bench {bench[name]:.2f})" if name in bench else ""),
            p["error"] < TOLERANCE and s["error"] < TOLERANCE and actions == {want})
    if a.framework == "torch":
        log_tf32 = os.path.join(tmp, "calls-tf32.csv")
        plain = run(a.framework, a.shapes, os.path.join(tmp, "plain-tf32.json"), 1, {}, True)
        served = run(a.framework, a.shapes, os.path.join(tmp, "served-tf32.json"), 1,
                     dict(preload, SGEMM_CUBLAS_LOG=log_tf32), True)
        _, calls = read_log(log_tf32)
        passed = all(c["action"] == "passed" for c in calls) and len(calls) > 0
        same = all(p["sha256"] == s["sha256"] for p, s in zip(plain, served))
        say(f"TF32 allowed: {sum(int(c['calls']) for c in calls)} calls, all passed through: "
            f"{passed}; results bit-identical to the run without the preload: {same}",
            passed and same)
    return checks.finish(a.report)


if __name__ == "__main__":
    sys.exit(main())
