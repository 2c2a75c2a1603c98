#!/usr/bin/env bash
# F2's split-K tiles on transposed copies of the K-contiguous operands (PACK = 2) against the same
# tiles in place (PACK = 0), exhaustive over tools/device/f2_split_pack/space.yaml, cuBLAS in the
# same interleaved rounds, into fresh databases; with the dispatcher's GPU tests first.
# PHASE=explore (default): the tests and both shape lists. PHASE=profile: Nsight Compute on
# 4096x128x4096, cuBLAS and the best transposed-copy point (f2_split_pack/profile.sh).
# PHASE may list several.
# Output: $OUT/split-pack.tar.gz. Never touches clocks or GPU settings. Binaries:
# NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-split-pack
dir=tools/device/f2_split_pack

gpu_facts
for phase in ${PHASE:-explore}; do
case "$phase" in
  explore)
    gpu_tests gpu-tests-dispatcher 'Dispatcher.*' 150
    tune_into long 260 $dir/long.csv $dir/space.yaml --strategy exhaustive
    tune_into short 150 $dir/short.csv $dir/space.yaml --strategy exhaustive
    ;;
  profile)
    source $dir/profile.sh
    ;;
esac
done
tar -C "$res" -czf "$out/split-pack.tar.gz" .
ls -la "$out"
