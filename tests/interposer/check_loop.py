#!/usr/bin/env python3
"""Record -> tune -> replay with the interposer, on an unmodified PyTorch program:

  check_loop.py --interposer LIB --tune-binary SGEMM_TUNE (--db DB | --dump JSON) --shapes CSV
                [--samples N] [--report FILE]

1. framework_mm.py runs the shapes under LD_PRELOAD with SGEMM_DISPATCH_MISS_LOG set, on a copy
   of the database;
2. `sgemm-tune tune --from-misses` tunes the logged shapes into that copy;
3. the same program runs again on it.
Checks: every shape is in the miss log with its call count; after tuning, the shapes that got a
route of their own are served and faster than in the first run (by more than 2%), the others
pass through and take the same time (within 5%); every result within the FP32 tolerance.
Exit 0 when all hold, 1 when one fails, 77 without PyTorch or a GPU."""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_frameworks import TOLERANCE, Checks, database, read_log, routed, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interposer", required=True)
    ap.add_argument("--tune-binary", required=True)
    ap.add_argument("--db")
    ap.add_argument("--dump")
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--report")
    a = ap.parse_args()
    checks = Checks()
    say = checks.say

    tmp = tempfile.mkdtemp(prefix="sgemm_loop_")
    db = os.path.join(tmp, "tuning.db")
    misses, log = os.path.join(tmp, "misses.csv"), os.path.join(tmp, "calls.csv")
    from framework_mm import problems
    shapes = problems(a.shapes)
    env = {"LD_PRELOAD": os.path.abspath(a.interposer), "SGEMM_TUNER_DB": db,
           "SGEMM_DISPATCH_MISS_LOG": misses, "SGEMM_CUBLAS_LOG": log}
    # A first run without the preload skips quickly where PyTorch or a GPU is missing.
    run("torch", a.shapes, os.path.join(tmp, "probe.json"), 1, {})
    source = database(a, tmp)
    if source != db:
        shutil.copy(source, db)  # tuning writes into a copy, never into the database given
    first = run("torch", a.shapes, os.path.join(tmp, "first.json"), a.samples, env)
    with open(misses) as f:
        logged = {f"{r['transa']}{r['transb']} {r['m']}x{r['n']}x{r['k']}": int(r["calls"])
                  for r in csv.DictReader(f)}
    for p in first:
        say(f"{p['problem']}: in the miss log with {logged.get(p['problem'], 0)} calls",
            logged.get(p["problem"], 0) > 0)
    tune = subprocess.run([a.tune_binary, "tune", "--from-misses", misses, "--db", db],
                          capture_output=True, text=True)
    say(f"tune --from-misses: exit {tune.returncode}", tune.returncode == 0)
    second = run("torch", a.shapes, os.path.join(tmp, "second.json"), a.samples,
                 dict(env, SGEMM_DISPATCH_MISS_LOG=""))
    _, calls = read_log(log)
    own = routed(os.path.dirname(os.path.abspath(a.interposer)), db, shapes)
    for p, q in zip(first, second):
        name = p["problem"]
        actions = {c["action"] for c in calls
                   if f"{c['transa']}{c['transb']} {c['m']}x{c['n']}x{c['k']}" == name
                   and c["reason"] != "not FP32 data"}
        gain = p["median_us"] / q["median_us"]
        if own[name]:
            ok = actions == {"served"} and gain > 1.02
            what = "tuned: a route of its own"
        else:
            ok = actions == {"passed"} and abs(gain - 1) < 0.05
            what = "tuned: cuBLAS stays"
        say(f"{name}: {what}; {p['median_us']:.1f} -> {q['median_us']:.1f} us ({gain:.2f}x), "
            f"second run {','.join(sorted(actions))}, error {q['error']:.2e}",
            ok and p["error"] < TOLERANCE and q["error"] < TOLERANCE)
    return checks.finish(a.report)


if __name__ == "__main__":
    sys.exit(main())
