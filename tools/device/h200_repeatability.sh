#!/usr/bin/env bash
# Measurement-methodology and dispatcher checks on the GPU machine (results to $OUT):
#  1. the shipped winners (tuner_db/nvidia-h200.json) imported with their cubins compiled;
#  2. bench of configs/shapes/repeat.csv five times in separate processes (spread of medians and
#     of the tuned/cuBLAS ratio across runs);
#  3. bench of configs/shapes/untuned.csv (problems never tuned) against cuBLAS;
#  4. configs/shapes/quick.csv tuned twice in separate processes into separate databases (same
#     winners, or winners inside the tie band);
#  5. compute-sanitizer memcheck and racecheck on the family correctness tests (time-boxed).
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
work=/tmp/sgemm
mkdir -p "$out" "$work"
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_SOURCE_DIR=$dist SGEMM_CACHE_DIR=$work/cubins SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune
tool=$dist/bin/sgemm-tune
cfg=$dist/configs

rm -f "$work/shipped.db"
"$tool" import tuner_db/nvidia-h200.json --db "$work/shipped.db" 2>&1 | tail -1
{
  for i in 1 2 3 4 5; do
    "$tool" -q bench --shapes configs/shapes/repeat.csv --db "$work/shipped.db" --seed $((100 + i)) \
      --json "$work/repeat$i.json" | grep -E "^(NN|geomean)"
  done
} > "$out/repeat.txt" 2>&1
cat "$out/repeat.txt"
"$tool" -q bench --shapes configs/shapes/untuned.csv --db "$work/shipped.db" --json "$out/untuned.json" \
  > "$out/untuned.txt" 2>&1
cat "$out/untuned.txt"
for run in a b; do
  rm -f "$work/quick-$run.db"
  timeout "${TUNE_TIMEOUT:-150}" "$tool" tune --shapes "$cfg/shapes/quick.csv" --db "$work/quick-$run.db" \
    --space "$cfg/spaces" --settings tools/device/screen_fast.yaml --max-candidates 60 \
    > "$out/quick-$run.log" 2>&1
  echo "tune $run exit $?"
  "$tool" -q list --db "$work/quick-$run.db" | awk '{print $1, $2, $6, $7, $8, $9, $10}' > "$out/quick-$run.txt"
done
paste -d'|' "$out/quick-a.txt" "$out/quick-b.txt" | head -8
if command -v compute-sanitizer >/dev/null; then
  for tool_name in memcheck racecheck; do
    timeout "${SANITIZER_TIMEOUT:-100}" compute-sanitizer --tool $tool_name --error-exitcode 9 \
      "$dist/tests/gpu_tests" --gtest_filter='Families/FamilyCorrectness.PaddedLeading*' \
      > "$out/sanitizer-$tool_name.log" 2>&1
    echo "compute-sanitizer $tool_name exit $?"; tail -4 "$out/sanitizer-$tool_name.log"
  done
fi
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
runs = [json.load(open(f"{work}/repeat{i}.json")) for i in range(1, 6)]
for p in range(len(runs[0]["problems"])):
    name = runs[0]["problems"][p]["problem"]
    for key in ("tuned_us", "cublas_us", "ratio"):
        v = [r["problems"][p][key] for r in runs]
        print(f"{name[:30]:30s} {key:10s} mean {statistics.mean(v):10.3f} rel stdev {100*statistics.stdev(v)/statistics.mean(v):.3f}%")
PY
