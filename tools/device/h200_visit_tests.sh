#!/usr/bin/env bash
# GPU tests, compute-sanitizer on the edge-shape sample, and compile throughput, in one device
# command (about 8 minutes at most). Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
RUN_TUNE=0 TEST_TIMEOUT=170 tools/device/h200_check.sh
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_SOURCE_DIR=$dist
run() {  # tool, gtest filter, time box in seconds, log name
  timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 "$dist/tests/gpu_tests" --gtest_filter="$2" \
    > "$out/$4.log" 2>&1
  echo "$4: exit $? ($1, $2)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$4.log" | tail -3
}
run memcheck 'Families/FamilyCorrectness.SanitizerSample/*' 70 memcheck-sample
run racecheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 60 racecheck-sample-f4
run racecheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt' 130 racecheck-sample-f1
STEP=compile tools/device/h200_engine.sh
