#!/usr/bin/env bash
# cuBLASLt's algorithms as winners, on the H200 in one device command: the GPU tests of the
# dispatcher and the tuner, then the shipped database refreshed for the public problems where
# cuBLASLt's best algorithm beat cublasSgemm in bench runs (tools/device/lt_winners/problems.csv,
# tuned again with --retune) and the public suite benched on it (h200_refresh_shipped.sh).
# Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
dist=$PWD/.device-dist
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SGEMM_SOURCE_DIR=$dist SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune
t0=$(date +%s)
timeout 200 "$dist/tests/gpu_tests" --gtest_filter='Dispatcher*:TunerGpu*:CublasLt*' \
  > "$out/gpu_tests_lt.log" 2>&1
echo "gpu_tests (Dispatcher, TunerGpu, CublasLt): exit $?, $(($(date +%s) - t0)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran" "$out/gpu_tests_lt.log" | tail -8
grep -E "Failure" -A6 "$out/gpu_tests_lt.log" | head -30
OWN=tools/device/lt_winners/problems.csv bash tools/device/h200_refresh_shipped.sh
