#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over the family correctness tests on the GPU machine,
# each time-boxed; logs to $OUT. Run from the repository root with .device-dist carried.
set -uo pipefail
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
dist=$PWD/.device-dist
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_SOURCE_DIR=$dist
source tools/device/lib.sh
case ${SAN_STEP:-sample} in
  sample)  # the small edge-shape sample of every family (SanitizerSample)
    sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/*' 70 memcheck-sample
    sanitize racecheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 60 racecheck-sample-f4
    sanitize racecheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt' 130 racecheck-sample-f1
    ;;
  full)  # the larger correctness tests (long under racecheck)
    sanitize memcheck 'Families/FamilyCorrectness.EdgeShapesAllTransposes/f4_skinny' 100 memcheck-f4-edges
    sanitize memcheck 'Families/FamilyCorrectness.PaddedLeading*' 120 memcheck-padded
    sanitize racecheck 'Families/FamilyCorrectness.PaddedLeading*/f4_skinny' 100 racecheck-f4-padded
    sanitize racecheck 'Families/FamilyCorrectness.PaddedLeading*/f1_simt' 120 racecheck-f1-padded
    ;;
esac
