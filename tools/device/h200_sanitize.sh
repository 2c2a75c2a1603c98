#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over the family correctness tests on the GPU machine,
# each time-boxed; logs to $OUT. Run from the repository root with .device-dist carried.
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_SOURCE_DIR=$dist
run() {  # tool, gtest filter, time box in seconds, log name
  timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 "$dist/tests/gpu_tests" --gtest_filter="$2" \
    > "$out/$4.log" 2>&1
  echo "$4: exit $? ($1, $2)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$4.log" | tail -3
}
case ${SAN_STEP:-sample} in
  sample)  # the small edge-shape sample of every family (SanitizerSample)
    run memcheck 'Families/FamilyCorrectness.SanitizerSample/*' 120 memcheck-sample
    run racecheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 120 racecheck-sample-f4
    run racecheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt' 240 racecheck-sample-f1
    ;;
  full)  # the larger correctness tests (long under racecheck)
    run memcheck 'Families/FamilyCorrectness.EdgeShapesAllTransposes/f4_skinny' 100 memcheck-f4-edges
    run memcheck 'Families/FamilyCorrectness.PaddedLeading*' 120 memcheck-padded
    run racecheck 'Families/FamilyCorrectness.PaddedLeading*/f4_skinny' 100 racecheck-f4-padded
    run racecheck 'Families/FamilyCorrectness.PaddedLeading*/f1_simt' 120 racecheck-f1-padded
    ;;
esac
