#!/usr/bin/env bash
# After the constant evict-first policy (kernel_templates/f4_skinny_detail.cuh): F4's GPU
# correctness tests under both L2 policies and the crash-isolation test (with its --retune pass),
# in one device command (FILTER: another gtest filter). Output: $OUT/check.tar.gz. Never touches
# clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-evict-check
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune

gpu_facts
filter=${FILTER:-F4L2Policy.*:F4Direct.*:Families/FamilyCorrectness.*/f4_skinny:InKernelReduce/*:CrashIsolation.*}
gpu_tests gpu-tests-f4 "$filter" 240

tar -C "$res" -czf "$out/check.tar.gz" .
ls -la "$out"
