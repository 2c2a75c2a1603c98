# f4_skinny's split-K summed in sgemm_main by the last block of each tile (REDUCE = 1) against
# the separate sgemm_reduce (0), for otherwise identical configurations: the shipped winners and
# their twins (<problem>/), every candidate a finalist, cuBLAS in the same interleaved rounds.
#   ab (default): the InKernelReduce GPU tests, both variants on 4096x16x4096, 32000x16x4096 and
#     64x64x65536 (-> summary.txt: every candidate's outcome, screening and final medians), then
#     memcheck over the same tests.
default_phase=ab

phase_ab() {
  gpu_tests gpu-tests 'InKernelReduce/*' 80
  local rounds
  rounds=$(settings_with rounds finalists=10 min_rounds=30)
  for p in 4096x16x4096 32000x16x4096 64x64x65536; do
    local list
    list=$(shapes "$p" "${p//x/,}")
    timed "tune-$p" timeout 45 sgemm-tune tune --shapes "$list" --db "$res/fused.db" --space "$dir/$p" \
      --settings "$rounds" --strategy exhaustive --json
  done
  sgemm-tune export --db "$res/fused.db" -o "$res/export.json" 2> "$res/export.log"
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
  sanitize memcheck 'InKernelReduce/*' 150 memcheck-fused
}
