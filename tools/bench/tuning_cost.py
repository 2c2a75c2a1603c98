#!/usr/bin/env python3
"""Tuning cost of `sgemm-tune tune --json` runs, and winner quality between two databases.

  tuning_cost.py time TUNE.json [TUNE2.json ...]
      per-problem seconds (a run resumed in parts: give every part; problems a later part found
      already tuned are skipped): median, maximum, problems over 30 s, the median of problems whose
      cuBLAS time is under 20 us, and where the time went.
  tuning_cost.py compare NEW.bench.json OLD.bench.json [NEW2.bench.json]
      `sgemm-tune bench --json` of the same shapes on two databases: the geomean of the tuned times
      relative to cuBLAS timed in the same run (new over old), and with a second bench of NEW
      the largest change of a problem's ratio between the two processes. Problems the old database
      did not tune (its run cut by a time budget) are left out of the comparison.
  tuning_cost.py drop TUNE.db [FACTOR ...]
      the screening drop rule (screen_drop_factor) replayed on a tuning database's candidates,
      in the order they were screened: a candidate of more than screen_min_samples (3) samples
      whose median is above FACTOR x the fastest so far (cuBLAS and the candidates before it)
      would have stopped at 3. Prints the screening sample time it would save and how many of
      the stopped candidates were finalists and winners. It takes the median of all samples for
      that of the first 3: on noisy microsecond kernels the two differ.
  tuning_cost.py twins TUNE.db FAMILY KNOB
      a knob measured inside one tuning run: per problem, the screened median of each FAMILY
      configuration with KNOB = 1 over its twin with KNOB = 0 (the same configuration otherwise),
      as median, least and most, then the winners, so a knob in the space shows whether it wins.
"""
import json
import math
import sqlite3
import statistics
import sys

PARTS = ["compile_wait_s", "verify_s", "screen_s", "lt_s", "confirm_s", "flush_s"]


def load_tune(paths):
    """One row per problem; a problem a time budget cut and a later part resumed counts the
    seconds of both parts."""
    rows = {}
    for path in paths:
        with open(path) as f:
            for r in json.load(f):
                if r.get("already_tuned"):
                    continue
                first = rows.get(r["problem"])
                if first:
                    r["seconds"] += first["seconds"]
                    spent = r.setdefault("time_spent", {})
                    for part, v in first.get("time_spent", {}).items():
                        spent[part] = spent.get(part, 0) + v
                rows[r["problem"]] = r
    return list(rows.values())


def time_report(paths):
    rows = load_tune(paths)
    secs = [r["seconds"] for r in rows]
    small = [r["seconds"] for r in rows if r["cublas_us"] < 20]
    print(f"problems tuned: {len(rows)}")
    print(f"seconds per problem: median {statistics.median(secs):.1f}, mean "
          f"{statistics.mean(secs):.1f}, max {max(secs):.1f}, total {sum(secs):.0f}")
    print(f"problems over 30 s: {sum(s > 30 for s in secs)}; over 10 s: {sum(s > 10 for s in secs)}")
    if small:
        print(f"cuBLAS under 20 us: {len(small)} problems, median {statistics.median(small):.1f} s, "
              f"max {max(small):.1f} s")
    total = {p: sum(r.get("time_spent", {}).get(p, 0) for r in rows) for p in PARTS}
    print("where the time went (sum over problems, s): " +
          ", ".join(f"{p} {v:.0f}" for p, v in total.items()))
    print("\n| problem | cuBLAS us | s | compile wait | verify | screen | cuBLASLt | rounds | flush | winner |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in sorted(rows, key=lambda r: -r["seconds"]):
        t = r.get("time_spent", {})
        print(f"| {r['problem'].split(' lda')[0]} | {r['cublas_us']:.1f} | {r['seconds']:.1f} | "
              + " | ".join(f"{t.get(p, 0):.1f}" for p in PARTS[:5])
              + f" ({r['rounds']}) | {t.get('flush_s', 0):.1f} | {r['family']} |")


def ratios(path, tuned_only=False):
    """Per problem, the bench's ratio; with tuned_only, only problems the database had tuned (its
    route says "not tuned" otherwise: a run cut by its budget)."""
    with open(path) as f:
        return {p["problem"]: p["ratio"] for p in json.load(f)["problems"]
                if not (tuned_only and p["route"]["reason"].startswith("not tuned"))}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def compare(new_path, old_path, again_path=None):
    new, old = ratios(new_path), ratios(old_path, tuned_only=True)
    common = sorted(set(new) & set(old))
    left = sorted(set(new) - set(old))
    if left:
        print(f"not tuned in the old database (left out): {', '.join(p.split(' lda')[0] for p in left)}")
    # ratio = cuBLAS time / tuned time; tuned new / tuned old = old ratio / new ratio.
    rel = [old[p] / new[p] for p in common]
    print(f"{len(common)} problems; new winners' time over old winners' (each against cuBLAS in its "
          f"own run), geomean {geomean(rel):.4f}")
    for p in common:
        print(f"  {p.split(' lda')[0]}: ratio new {new[p]:.3f}, old {old[p]:.3f}")
    if again_path:
        again = ratios(again_path)
        both = sorted(set(new) & set(again))
        change = [abs(again[p] / new[p] - 1) for p in both]
        print(f"repeatability over two processes: largest ratio change {100 * max(change):.2f}%, "
              f"median {100 * statistics.median(change):.2f}%")


def drop_replay(db_path, factors):
    db = sqlite3.connect(db_path)
    problems = [pid for (pid,) in db.execute("SELECT id FROM problems")]
    winners = {pid: cid for pid, cid in db.execute("SELECT problem_id, candidate_id FROM winners")}
    for factor in factors:
        total = saved = 0.0
        stopped = finalists = lost = 0
        for pid in problems:
            rows = db.execute(
                "SELECT id, screen_median_us, screen_samples, final_median_us, cublas_us "
                "FROM candidates WHERE problem_id = ? AND screen_median_us IS NOT NULL "
                "AND family <> 'cublaslt' "
                "ORDER BY id", (pid,)).fetchall()
            cublas = [r[4] for r in rows if r[4]]
            fastest = min(cublas) if cublas else math.inf
            for cid, median, samples, final, _ in rows:
                total += median * samples
                if samples > 3 and median > factor * fastest:
                    saved += (samples - 3) * median
                    stopped += 1
                    finalists += final is not None
                    lost += winners.get(pid) == cid
                fastest = min(fastest, median)
        print(f"factor {factor}: {stopped} candidates stopped at 3 samples, "
              f"{saved / 1e6:.1f} s of {total / 1e6:.1f} s of screening samples saved; "
              f"{finalists} of them finalists, {lost} winners")


def twins(db_path, family, knob):
    db = sqlite3.connect(db_path)
    name = "p.transa || p.transb || ' ' || p.m || 'x' || p.n || 'x' || p.k"
    pairs = {}
    for problem, config, median in db.execute(
            f"SELECT {name}, c.config, c.screen_median_us FROM candidates c "
            "JOIN problems p ON p.id = c.problem_id "
            "WHERE c.family = ? AND c.outcome = 'ok' AND c.screen_median_us IS NOT NULL",
            (family,)):
        knobs = dict(kv.split("=") for kv in config.split(","))
        value = knobs.pop(knob, "0")
        pairs.setdefault((problem, tuple(sorted(knobs.items()))), {})[value] = median
    by_problem = {}
    for (problem, _), times in pairs.items():
        if "0" in times and "1" in times:
            by_problem.setdefault(problem, []).append(times["1"] / times["0"])
    for problem, r in sorted(by_problem.items()):
        print(f"{problem:28s} twins {len(r):3d}  {knob} 1 / 0 median {statistics.median(r):.3f}  "
              f"min {min(r):.3f}  max {max(r):.3f}")
    for row in db.execute(f"SELECT {name}, w.family, w.config FROM winners w "
                          "JOIN problems p ON p.id = w.problem_id"):
        print("winner", *row)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "time":
        time_report(sys.argv[2:])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "compare":
        compare(*sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "drop":
        drop_replay(sys.argv[2], [float(f) for f in sys.argv[3:]] or [1.05, 1.10, 1.15])
    elif len(sys.argv) == 5 and sys.argv[1] == "twins":
        twins(*sys.argv[2:])
    else:
        sys.exit(__doc__)
