#!/usr/bin/env bash
# In-kernel ("serial") split-K of f4_skinny, REDUCE = 1, on the H200 in one device command of
# about 5 minutes: the FusedReduce GPU tests, then REDUCE = 0 against REDUCE = 1 for otherwise
# identical configurations (the shipped winners, tools/device/fused_reduce/<problem>/) on
# 4096x16x4096, 32000x16x4096 and 64x64x65536, finalists and cuBLAS timed in the same interleaved
# rounds; then memcheck over those tests. Everything goes into $OUT/fused.tar.gz (and the
# memcheck log). Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-fused
spaces=tools/device/fused_reduce

gpu_facts

# 1. Correctness: the fused variant against cuBLAS and FP64, and repeated runs on one workspace.
gpu_tests gpu_tests 'InKernelReduce/*' 80

# 2. Timing: each problem alone, every candidate of its small space a finalist.
for p in 4096x16x4096 32000x16x4096 64x64x65536; do
  IFS=x read -r m n k <<< "$p"
  printf 'm,n,k\n%s,%s,%s\n' "$m" "$n" "$k" > "$res/$p.csv"
  timed "tune-$p" timeout 45 "$dist/bin/sgemm-tune" tune --shapes "$res/$p.csv" --db "$res/fused.db" \
    --space "$spaces/$p" --settings "$spaces/settings.yaml" --strategy exhaustive --json
  "$dist/bin/sgemm-tune" explain "$m" "$n" "$k" --db "$res/fused.db" --top 10 --json \
    > "$res/explain-$p.json" 2> "$res/explain-$p.log"
done
"$dist/bin/sgemm-tune" export --db "$res/fused.db" -o "$res/export.json" 2> "$res/export.log"

# Every candidate: outcome, screening and interleaved medians, cuBLAS in the same rounds.
python3 - "$res/fused.db" > "$res/summary.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT p.m, p.n, p.k, c.config, c.outcome, c.screen_median_us, c.final_median_us,
                            c.cublas_us FROM candidates c JOIN problems p ON p.id = c.problem_id
                     ORDER BY p.m, p.n, p.k, c.config""")
print(f"{'problem':<16} {'us':>8} {'screen':>8} {'cuBLAS':>8}  outcome  config")
fmt = lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}"
for m, n, k, config, outcome, screen, final, cublas in rows:
    print(f"{m}x{n}x{k:<8} {fmt(final)} {fmt(screen)} {fmt(cublas)}  {outcome:<8} {config}")
PY
cat "$res/summary.txt"

# 3. compute-sanitizer memcheck over the same tests (out-of-bounds and misaligned accesses of
# the workspace, the counters and C), time-boxed.
sanitize memcheck 'InKernelReduce/*' 150 memcheck-fused

tar -C "$res" -czf "$out/fused.tar.gz" .
ls -la "$out"
