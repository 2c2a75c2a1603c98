#!/usr/bin/env python3
"""Leave-out replay of prediction rules over a tuning database (no GPU).

  prediction_replay.py DB[.gz] [--folds 5] [--seed 1]

The database holds, per problem, the winner and every screened candidate with its screening
median and cuBLAS's time in the same screening (a `sgemm-tune tune` database, such as
tests/data/h100-suites.db.gz or h200-suites.db.gz: the public suite and the sweep tuned on an
H100 or an H200 with the shipped settings). Databases tuned since cuBLASLt's screening is recorded also hold every correct
cuBLASLt algorithm screened on each problem (family "cublaslt"). The problems are shuffled (seed)
and split into folds; each fold in turn is held out, a rule picks a configuration for each
held-out problem from the other folds only, and the pick is
scored with what the tuner measured on the held-out problem itself: cuBLAS time / the picked
candidate's screening median (1.0 when the rule picks cuBLAS; "unknown" when the tuner never
screened that configuration there).

The first line gives what tuning itself reached (the winners' confirmation rounds). Rules:
  oracle   the problem's own best screened own-kernel candidate (what tuning it finds; the
           ceiling of any prediction from these families); "oracle+lt" also takes cuBLASLt's
           screened algorithms;
  nearest  the dispatcher's shipped rule (docs/dispatcher.md, the lookup chain): the closest
           winner of the same class (transposes, alignment class and, below class 4, the width
           of ldc) within a factor 2 in m, n and k;
           cuBLAS if that winner is cuBLAS's or cuBLASLt's, or gains under 1.05x (a re-statement
           of src/dispatch/lookup.cpp, without its check that the kernel variant matches);
  knn      every configuration screened on the k nearest problems of the same class within a
           log2 distance d (own kernels, and cuBLASLt's algorithms where recorded) is scored by
           its measured speed-ups there (a distance-weighted mean, capped at 1.05x the worst);
           the best above a margin is picked;
  lt-nearest  the cuBLASLt algorithm that won the closest problem of the same class within a log2
           distance d whose winner is cuBLASLt's, where it won by 1.05x or more.
Per rule: problems scored, unknown, served (not cuBLAS), the geomean over all scored problems and
over the served ones, the worst, and how many fall below 0.97x."""
import argparse
import collections
import gzip
import math
import os
import random
import shutil
import sqlite3
import tempfile


def load(path):
    unpacked = None
    if path.endswith(".gz"):
        unpacked = tempfile.NamedTemporaryFile(suffix=".db", delete=False)
        with gzip.open(path) as f:
            shutil.copyfileobj(f, unpacked)
        unpacked.close()
        path = unpacked.name
    db = sqlite3.connect(path)
    problems = {r[0]: dict(ta=r[1], tb=r[2], m=r[3], n=r[4], k=r[5], align=r[6], ldc=r[7])
                for r in db.execute(
                    "SELECT id, transa, transb, m, n, k, align, ldc FROM problems")}
    winners = {r[0]: dict(family=r[1], config=r[2], t=r[3], cublas=r[4]) for r in db.execute(
        "SELECT problem_id, family, config, time_us, cublas_us FROM winners")}
    screened, cublas = collections.defaultdict(dict), collections.defaultdict(list)
    for pid, family, config, median, cb, outcome in db.execute(
            "SELECT problem_id, family, config, screen_median_us, cublas_us, outcome "
            "FROM candidates"):
        if median and outcome == "ok":
            screened[pid][(family, config)] = median
        if cb:
            cublas[pid].append(cb)
    cublas = {p: sorted(v)[len(v) // 2] for p, v in cublas.items()}
    db.close()
    if unpacked:
        os.unlink(unpacked.name)
    return problems, winners, screened, cublas


class Replay:
    def __init__(self, problems, winners, screened, cublas):
        self.P, self.W, self.T, self.C = problems, winners, screened, cublas

    @staticmethod
    def ld_width(ld):
        return 4 if ld % 4 == 0 else 2 if ld % 2 == 0 else 1

    def same_class(self, a, b):
        # Below class 4 the width of ldc too (the dispatcher's rule: F1 stores an aligned C in
        # float4s whatever the class).
        c_alike = a["align"] == 4 or self.ld_width(a["ldc"]) == self.ld_width(b["ldc"])
        return (a["ta"], a["tb"], a["align"]) == (b["ta"], b["tb"], b["align"]) and c_alike

    @staticmethod
    def distance(a, b):
        return math.sqrt(sum(math.log2(a[x] / b[x]) ** 2 for x in "mnk"))

    def speedup(self, pid, choice):
        if choice is None:
            return 1.0
        t = self.T[pid].get(choice)
        return None if t is None else self.C[pid] / t

    def oracle(self, pid, train, with_lt=False):
        pool = [kv for kv in self.T[pid].items() if with_lt or kv[0][0] != "cublaslt"]
        if not pool:
            return None
        choice, t = min(pool, key=lambda kv: kv[1])
        return choice if self.C[pid] / t > 1 else None

    def lt_nearest(self, pid, train, radius):
        p = self.P[pid]
        near = [(self.distance(p, self.P[q]), q) for q in train
                if self.same_class(p, self.P[q]) and self.W[q]["family"] == "cublaslt"
                and self.distance(p, self.P[q]) <= radius]
        if not near:
            return None
        w = self.W[min(near)[1]]
        return ("cublaslt", w["config"]) if w["cublas"] / w["t"] >= 1.05 else None

    def nearest(self, pid, train):
        p = self.P[pid]
        limit = math.log2(2) + 1e-12
        eligible = sorted((self.distance(p, self.P[q]), q) for q in train
                          if self.same_class(p, self.P[q])
                          and all(abs(math.log2(p[x] / self.P[q][x])) <= limit for x in "mnk"))
        for _, q in eligible:
            w = self.W[q]
            if w["family"] in ("cublas", "cublaslt") or w["cublas"] / w["t"] < 1.05:
                return None
            return (w["family"], w["config"])
        return None

    def knn(self, pid, train, k, radius, margin):
        p = self.P[pid]
        near = sorted((self.distance(p, self.P[q]), q) for q in train
                      if self.same_class(p, self.P[q]) and self.distance(p, self.P[q]) <= radius)[:k]
        scores = collections.defaultdict(list)
        for d, q in near:
            for choice, t in self.T[q].items():
                scores[choice].append((1 / (0.25 + d), self.C[q] / t))
        best, best_value = None, margin
        for choice, v in scores.items():
            if len(v) < min(2, len(near)):
                continue
            mean = sum(w * x for w, x in v) / sum(w for w, _ in v)
            value = min(mean, 1.05 * min(x for _, x in v))
            if value > best_value:
                best, best_value = choice, value
        return best

    def evaluate(self, rule, folds, seed):
        ids = sorted(self.P)
        random.Random(seed).shuffle(ids)
        scored, unknown = [], 0
        for f in range(folds):
            held = set(ids[f::folds])
            train = [i for i in ids if i not in held]
            for pid in sorted(held):
                choice = rule(pid, train)
                s = self.speedup(pid, choice)
                if s is None:
                    unknown += 1
                else:
                    scored.append((choice is not None, s))
        return scored, unknown


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = Replay(*load(a.db))
    rules = [("oracle (own best, tuned)", r.oracle),
             ("oracle+lt (with cuBLASLt)", lambda p, t: r.oracle(p, t, True)),
             ("nearest (shipped rule)", r.nearest)]
    for radius in (1.0, 2.5):
        rules.append((f"lt-nearest d<={radius}", lambda p, t, d=radius: r.lt_nearest(p, t, d)))
    for k in (2, 4, 8):
        for radius in (1.5, 2.5, 4.0):
            for margin in (1.03, 1.08):
                rules.append((f"knn k={k} d<={radius} margin {margin}",
                              lambda p, t, k=k, d=radius, m=margin: r.knn(p, t, k, d, m)))
    tuned = [w["cublas"] / w["t"] if w["family"] != "cublas" else 1.0 for w in r.W.values()]
    print(f"{len(r.P)} problems, {a.folds} folds (seed {a.seed}); the tuned winners (own kernels "
          f"and cuBLASLt, confirmation rounds): geomean {geomean(tuned):.3f}")
    print(f"{'rule':32} {'scored':>6} {'unknown':>7} {'served':>6} {'geo all':>7} "
          f"{'geo served':>10} {'worst':>6} {'<0.97':>5}")
    for name, rule in rules:
        scored, unknown = r.evaluate(rule, a.folds, a.seed)
        served = [s for on, s in scored if on]
        allv = [s for _, s in scored]
        print(f"{name:32} {len(scored):6d} {unknown:7d} {len(served):6d} {geomean(allv):7.3f} "
              f"{geomean(served):10.3f} {min(allv):6.3f} {sum(s < 0.97 for s in allv):5d}")


if __name__ == "__main__":
    main()
