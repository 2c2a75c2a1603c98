#!/usr/bin/env bash
# The public-suite visit, in two steps so each fits one device command:
#   STEP=tune: GPU tests, then tune .device-dist/configs/shapes/public.csv into /tmp/sgemm/tuning.db
#   STEP=bench: bench the dispatcher on that database against cuBLAS, export the winners
# Run from the repository root with .device-dist carried; results go to $OUT.
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
work=/tmp/sgemm
mkdir -p "$out" "$work"
export SGEMM_SOURCE_DIR=$PWD/.device-dist  # configs/ of the tree the binaries were built from
export SGEMM_CACHE_DIR=$work/cubins
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune
tool=$dist/bin/sgemm-tune
shapes=${SHAPES:-.device-dist/configs/shapes/public.csv}
settings=${SETTINGS:-tools/device/screen_fast.yaml}

case ${STEP:-tune} in
  tune)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_event_reasons.active \
      --format=csv | tee "$out/gpu.txt"
    timeout "${TEST_TIMEOUT:-150}" "$dist/tests/gpu_tests" > "$out/gpu_tests.log" 2>&1
    echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED)|Failure" -A3 "$out/gpu_tests.log" | head -40
    timeout "${TUNE_TIMEOUT:-380}" "$tool" tune --shapes "$shapes" --db "$work/tuning.db" \
      --settings "$settings" --space .device-dist/configs/spaces ${TUNE_ARGS:-} > "$out/tune.log" 2>&1
    echo "tune exit $?"; tail -32 "$out/tune.log"
    ;;
  bench)
    timeout "${BENCH_TIMEOUT:-300}" "$tool" bench --shapes "$shapes" --db "$work/tuning.db" \
      --json "$out/bench.json" > "$out/bench.txt" 2>&1
    echo "bench exit $?"; cat "$out/bench.txt"
    "$tool" export --db "$work/tuning.db" --winners-only -o "$out/nvidia-h200.json"
    "$tool" export --db "$work/tuning.db" -o "$out/full-export.json"
    "$tool" list --db "$work/tuning.db" > "$out/list.txt"
    ls -la "$out"
    ;;
esac
