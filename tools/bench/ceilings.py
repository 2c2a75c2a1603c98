#!/usr/bin/env python3
"""Each problem's ceiling under the project's timing, next to what a bench measured, and the
geomeans per class (the shape list's class column; `sgemm-tune bench` keeps it as each problem's
label).

usage: ceilings.py BENCH_JSON [--rows] [--stream-tbps X]   (BENCH_JSON: `sgemm-tune bench --json`)

A problem's fastest plausible time is FLOOR_US + max(2mnk / (FP32_SHARE * peak),
4 (mk + kn + mn) / copy rate): the fixed cost every cold-flush sample carries, plus the multiply
at the best FP32 share any SIMT kernel reached, or the operands streamed once at the copy rate.
The peak and the copy rate are the bench's own (`peak_tflops`: FP32 at the clock it read;
`copy_tbps`: a device-to-device copy it timed; --stream-tbps sets another rate, such as 3.9, the
best streaming rate a kernel reached on the H200, which issue 28's table used). Per class:
  vs cuBLAS        geomean of cuBLAS's time over the dispatcher's, timed in the same rounds;
  vs Lt best       the same against the fastest of cuBLASLt's verified heuristic algorithms;
  own              problems the dispatcher served with its own kernel or a cuBLASLt algorithm;
  cuBLAS/ceiling   how far cuBLAS is from the ceiling (issue 28's table);
  ceiling/tuned    the fraction of the ceiling the dispatcher reached.
"""
import json
import math
import sys

FLOOR_US = 4.6     # cuBLAS on 8x8x8 under cold-flush (docs/findings.md, "The floor ...")
FP32_SHARE = 0.81  # F2 on 8192^3 (80.9% of FP32 peak), the best share measured


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def ceiling_us(p, peak_tflops, copy_tbps):
    m, n, k = p["m"], p["n"], p["k"]
    compute_us = 2.0 * m * n * k / (FP32_SHARE * peak_tflops * 1e12) * 1e6
    stream_us = 4.0 * (m * k + k * n + m * n) / (copy_tbps * 1e12) * 1e6
    return FLOOR_US + max(compute_us, stream_us)


def lt_ratio(p):
    lt = p.get("cublaslt") or {}
    best = lt.get("best_us")
    return best / p["tuned_us"] if best else None


def main(path, rows_too, stream_tbps):
    bench = json.load(open(path))
    peak, copy = bench["peak_tflops"], stream_tbps or bench["copy_tbps"]
    print(f"{bench['device']}: FP32 peak {peak:.1f} TFLOP/s, streaming {copy:.2f} TB/s, "
          f"floor {FLOOR_US} us, FP32 share {FP32_SHARE}")
    classes = {}
    for p in bench["problems"]:
        c = ceiling_us(p, peak, copy)
        row = {"ratio": p["ratio"], "lt": lt_ratio(p), "own": p["route"]["family"] != "cublas",
               "cublas_gap": p["cublas_us"] / c, "reached": c / p["tuned_us"]}
        classes.setdefault(p.get("label") or "unlabelled", []).append(row)
        if rows_too:
            print(f"{p['problem']:<55} {p['cublas_us']:>10.2f} {p['tuned_us']:>10.2f} "
                  f"{c:>10.2f} {row['ratio']:>7.3f} {row['reached']:>6.2f}")
    print(f"| class | problems | vs cuBLAS | vs Lt best | own | cuBLAS/ceiling | ceiling/tuned |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    everything = [r for rs in classes.values() for r in rs]
    for name, rs in list(classes.items()) + [("all", everything)]:
        lts = [r["lt"] for r in rs if r["lt"]]
        print(f"| {name} | {len(rs)} | {geomean([r['ratio'] for r in rs]):.3f} | "
              f"{geomean(lts):.3f} | {sum(r['own'] for r in rs)} | "
              f"{geomean([r['cublas_gap'] for r in rs]):.2f} | "
              f"{geomean([r['reached'] for r in rs]):.2f} |")
    worst = min(everything, key=lambda r: r["ratio"])
    print(f"lowest ratio {worst['ratio']:.3f}")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("bench")
    parser.add_argument("--rows", action="store_true")
    parser.add_argument("--stream-tbps", type=float)
    a = parser.parse_args()
    main(a.bench, a.rows, a.stream_tbps)
