#!/usr/bin/env python3
"""Upper bounds on each public problem's ratio (cuBLAS time / dispatcher time) under the
project's timing, from quantities measured on the H200, next to the ratios a bench measured.

usage: ceilings.py BENCH_JSON   (the --json output of `sgemm-tune bench` over the public suite)

A problem's fastest plausible time is FLOOR_US + max(2mnk / (FP32_SHARE * peak),
4 (mk + kn + mn) / STREAM_TBPS): the fixed cost every cold-flush sample carries, plus the
multiply at the best FP32 share any SIMT kernel reached here, or the operands streamed once at
the best rate any kernel reached here. Its ratio ceiling is cuBLAS's measured time over that.
"""
import json
import math
import sys

FLOOR_US = 4.6        # cuBLAS on 8x8x8 under cold-flush (../2026-12-02-f1-reduce/floor-cold-flush.txt)
PEAK = 66.9e12        # FP32 at 1980 MHz: 132 SMs x 128 lanes x 2 FLOP
FP32_SHARE = 0.81     # F2 on 8192^3 (80.9%), the best share measured
STREAM_TBPS = 3.9     # F4 on 32000x16x4096: 524 MB in 139.2 - 4.6 us (../2026-12-03-skinny-profile/)

# The classes (issue 3), by (transposes, m, n, k).
CLASSES = {
    "large": [("NN", 2048, 2048, 2048), ("NN", 4096, 4096, 4096), ("NN", 8192, 8192, 8192),
              ("NN", 4096, 2048, 11008), ("NN", 11008, 2048, 4096), ("NN", 4096, 128, 4096),
              ("NN", 12288, 2048, 4096), ("TN", 4096, 4096, 4096), ("NT", 4096, 4096, 4096)],
    "medium": [("NN", 1000, 1300, 700), ("NN", 1023, 1025, 1027), ("NN", 3000, 3000, 3000),
               ("NN", 100, 10000, 1000), ("NN", 1024, 1024, 1024)],
    "small": [("NN", 512, 512, 512), ("NN", 257, 511, 129), ("NN", 64, 64, 65536),
              ("NN", 65536, 64, 64), ("NN", 8192, 8192, 64)],
    "skinny": [("NN", 4096, 16, 4096), ("NN", 4096, 1, 4096), ("NN", 32000, 16, 4096)],
}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(path):
    bench = json.load(open(path))
    rows = {}
    print(f"{'problem':<22} {'cuBLAS us':>10} {'ceiling us':>10} {'max ratio':>9} {'measured':>9}")
    for p in bench["problems"]:
        m, n, k = p["m"], p["n"], p["k"]
        key = (p["transa"] + p["transb"], m, n, k)
        compute_us = 2.0 * m * n * k / (FP32_SHARE * PEAK) * 1e6
        stream_us = 4.0 * (m * k + k * n + m * n) / (STREAM_TBPS * 1e12) * 1e6
        ceiling_us = FLOOR_US + max(compute_us, stream_us)
        rows[key] = (p["cublas_us"] / ceiling_us, p["ratio"])
        print(f"{key[0]} {m}x{n}x{k:<12} {p['cublas_us']:>10.2f} {ceiling_us:>10.2f} "
              f"{rows[key][0]:>9.2f} {p['ratio']:>9.3f}")
    print()
    for name, keys in [("all", list(rows))] + list(CLASSES.items()):
        sel = [rows[key] for key in keys if key in rows]
        print(f"{name:<7} {len(sel):>2} problems: ceiling geomean {geomean([c for c, _ in sel]):.3f}, "
              f"measured {geomean([r for _, r in sel]):.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
