#!/usr/bin/env bash
# F2's 128-accumulator tiles with K split or streamed (tools/device/f2_wide_split/*.yaml) on the
# H200, each phase one device command of at most 10 minutes:
#   PHASE=explore: every point of both spaces on f2_wide_split/shapes.csv, --strategy exhaustive,
#     into a fresh database (cuBLAS timed in the same rounds);
#   PHASE=retune: the GPU tests of F2's 128-accumulator split and stream-K points (unless
#     TESTS=0; they ran while those points were in configs/spaces), then $SHAPES
#     (default f2_wide_split/shapes.csv) tuned again on $BASE (an exported database; default the
#     shipped one) with every default space (--retune --lt-algos 8), the winners exported
#     (nvidia-h200.json, shipped.db) and, unless BENCH=0, the public suite benched on the export;
#   PHASE=all: explore, then retune, in one command.
# Output: $OUT/wide-split-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-wide-split
phase=${PHASE:-explore}
dir=tools/device/f2_wide_split

gpu_facts
explore() { tune_into explore 150 $dir/shapes.csv $dir --strategy exhaustive; }
retune() {
  [[ ${TESTS:-1} == 1 ]] && gpu_tests gpu-tests-wide 'F2Tma.WideTiles*' 120
  retune_shipped "${SHAPES:-$dir/shapes.csv}" 150
  [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
}
case $phase in
  explore) explore ;;
  retune) retune ;;
  all) explore; retune ;;
esac
tar -C "$res" -czf "$out/wide-split-$phase.tar.gz" .
ls -la "$out"
