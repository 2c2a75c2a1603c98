#!/usr/bin/env bash
# f4_skinny's register-streaming path (DIRECT = 1) on the H200 in one device command: its GPU
# tests, an exhaustive search of tools/device/skinny_direct/<problem>/ on 4096x16x4096 and
# 4096x1x4096 (the best 8 confirmed in rounds interleaved with cuBLAS), the rest of the GPU tier,
# and memcheck over a sample. Everything goes into $OUT/direct.tar.gz (and the memcheck log).
# Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-direct
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune  # crash isolation runs the tuner
spaces=tools/device/skinny_direct
PROBLEMS=${PROBLEMS:-4096x16x4096 4096x1x4096}

gpu_facts

# 1. Correctness of the path being timed.
gpu_tests tests-direct 'F4Direct.*' 150

# 2. Timing: each problem alone over its DIRECT space.
for p in $PROBLEMS; do
  IFS=x read -r m n k <<< "$p"
  printf 'm,n,k\n%s,%s,%s\n' "$m" "$n" "$k" > "$res/$p.csv"
  timed "tune-$p" timeout 200 "$dist/bin/sgemm-tune" tune --shapes "$res/$p.csv" --db "$res/direct.db" \
    --space "$spaces/$p" --settings "$spaces/settings.yaml" --strategy exhaustive --time-budget 170 --json
done
python3 tools/device/skinny_direct/top.py "$res/direct.db" 25 | tee "$res/summary.txt"

# 3. The rest of the GPU tier, then memcheck over the DIRECT sample.
gpu_tests tests-rest '-F4Direct.*' 260
sanitize memcheck 'F4Direct.PaddedLeadingDimensionsAndMisalignedPointers' 120 memcheck-direct

tar -C "$res" -czf "$out/direct.tar.gz" .
ls -la "$out"
