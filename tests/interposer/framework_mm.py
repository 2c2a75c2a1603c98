#!/usr/bin/env python3
"""One process of the interposer checks: FP32 matrix products through PyTorch or CuPy, as an
unmodified application makes them. For each cuBLAS-shaped problem (column-major m, n, k and
transposes) it builds the row-major operands whose product the framework hands to cuBLAS as
exactly that problem, and writes per problem: the normwise error against an FP64 product, a
SHA-256 of the result's bytes, and the median time of cold-L2 samples (CUDA events).

  framework_mm.py --framework torch|cupy --shapes CSV --out JSON [--tf32] [--samples N]

Exit 77 when the framework or a GPU is missing (the tests count that as a skip)."""
import argparse
import csv
import hashlib
import json
import math
import statistics
import sys

SKIP = 77


def problems(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    return [(int(r["m"]), int(r["n"]), int(r["k"]), r.get("transa") or "N", r.get("transb") or "N")
            for r in rows]


class Torch:
    def __init__(self, tf32):
        import torch
        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
        torch.backends.cuda.matmul.allow_tf32 = tf32
        self.t = torch
        self.flush_buf = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def randn(self, rows, cols, seed):
        g = self.t.Generator(device="cuda").manual_seed(seed)
        return self.t.randn(rows, cols, generator=g, device="cuda", dtype=self.t.float32)

    def mm(self, x, y):
        return self.t.mm(x, y)

    def flush(self):
        self.flush_buf.zero_()

    def event(self):
        return self.t.cuda.Event(enable_timing=True)

    def elapsed_ms(self, a, b):
        self.t.cuda.synchronize()
        return a.elapsed_time(b)

    def record(self, e):
        e.record()

    def as_f64(self, x):
        return x.double()

    def norm(self, x):
        return float(self.t.linalg.norm(x))

    def host_bytes(self, x):
        return x.contiguous().cpu().numpy().tobytes()


class Cupy:
    def __init__(self, tf32):
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise ImportError("no CUDA device")
        if tf32:
            raise ImportError("the CuPy check runs FP32 only (CUPY_TF32 unset)")
        self.cp = cupy
        self.flush_buf = cupy.empty(256 << 20, dtype=cupy.uint8)

    def randn(self, rows, cols, seed):
        return self.cp.random.default_rng(seed).standard_normal((rows, cols), dtype=self.cp.float32)

    def mm(self, x, y):
        return self.cp.matmul(x, y)

    def flush(self):
        self.flush_buf.fill(0)

    def event(self):
        return self.cp.cuda.Event()

    def record(self, e):
        e.record()

    def elapsed_ms(self, a, b):
        b.synchronize()
        return self.cp.cuda.get_elapsed_time(a, b)

    def as_f64(self, x):
        return x.astype(self.cp.float64)

    def norm(self, x):
        return float(self.cp.linalg.norm(x))

    def host_bytes(self, x):
        return self.cp.ascontiguousarray(x).get().tobytes()


def operands(fw, m, n, k, ta, tb, seed):
    """Row-major X (n x k) and Y (k x m) with C = X @ Y (n x m, row-major) handed to cuBLAS as
    the column-major problem C(m x n) = op(A) op(B): A is Y, B is X. op(A) = T: Y is the transposed
    view of a contiguous (m x k); op(B) = T: X is the transposed view of a contiguous (k x n)."""
    y = fw.randn(m, k, seed).T if ta == "T" else fw.randn(k, m, seed)
    x = fw.randn(k, n, seed + 1).T if tb == "T" else fw.randn(n, k, seed + 1)
    return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", choices=["torch", "cupy"], required=True)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tf32", action="store_true")
    ap.add_argument("--samples", type=int, default=30)
    a = ap.parse_args()
    try:
        fw = (Torch if a.framework == "torch" else Cupy)(a.tf32)
    except ImportError as e:
        print(f"skip: {a.framework}: {e}", file=sys.stderr)
        return SKIP
    out = []
    for i, (m, n, k, ta, tb) in enumerate(problems(a.shapes)):
        x, y = operands(fw, m, n, k, ta, tb, 1000 + 2 * i)
        c = fw.mm(x, y)
        ref = fw.mm(fw.as_f64(x), fw.as_f64(y))
        err = fw.norm(fw.as_f64(c) - ref) / (math.sqrt(k + 2) * fw.norm(x) * fw.norm(y))
        times = []
        for _ in range(a.samples):
            fw.flush()
            start, stop = fw.event(), fw.event()
            fw.record(start)
            fw.mm(x, y)
            fw.record(stop)
            times.append(fw.elapsed_ms(start, stop) * 1000)
        out.append({"problem": f"{ta}{tb} {m}x{n}x{k}", "error": err,
                    "sha256": hashlib.sha256(fw.host_bytes(c)).hexdigest(),
                    "median_us": statistics.median(times)})
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
