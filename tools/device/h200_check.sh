#!/usr/bin/env bash
# One visit to the GPU machine: device facts, the GPU test tier, a tuning run of a shape list and
# an export of what it stored. Runs from the repository root with .device-dist carried along;
# logs and results go to $OUT. Never touches clocks or GPU settings.
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
shapes=${SHAPES:-.device-dist/configs/shapes/quick.csv}
settings=${SETTINGS:-configs/measure.yaml}
export SGEMM_SOURCE_DIR=$PWD/.device-dist  # configs/ of the tree the binaries were built from
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_event_reasons.active \
  --format=csv | tee "$out/gpu.txt"

if [[ ${RUN_TESTS:-1} == 1 ]]; then
  timeout "${TEST_TIMEOUT:-300}" "$dist/tests/gpu_tests" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} \
    --gtest_output="json:$out/gpu_tests.json" > "$out/gpu_tests.log" 2>&1
  echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran" "$out/gpu_tests.log" | tail -20
  grep -E "Failure|FAILED" -A4 "$out/gpu_tests.log" | head -60
fi

if [[ ${RUN_TUNE:-1} == 1 ]]; then
  rm -f "$out/tuning.db"
  timeout "${TUNE_TIMEOUT:-300}" "$dist/bin/sgemm-tune" tune --shapes "$shapes" --db "$out/tuning.db" \
    --settings "$settings" --space .device-dist/configs/spaces ${TUNE_ARGS:-} 2>&1 | tee "$out/tune.log" | tail -40
  "$dist/bin/sgemm-tune" list --db "$out/tuning.db" > "$out/list.txt" 2>&1
  sqlite3 "$out/tuning.db" "select family, outcome, count(*) from candidates group by 1,2" 2>/dev/null \
    || true
fi
ls -la "$out"
