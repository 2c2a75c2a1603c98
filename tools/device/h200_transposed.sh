#!/usr/bin/env bash
# F2 on transposed copies of its K-contiguous operands (PACK = 2) on the H200, each phase one
# device command of at most 10 minutes:
#   PHASE=explore: the transposing and packing GPU tests, F2's family-wide checks, compute-sanitizer
#     memcheck over the packing sample (which holds transposing points), then every point of
#     the transposed space on f2_transposed/large.csv into a fresh database, and F2's in-place
#     default space on the same problems into another (cuBLAS timed in the same rounds in each);
#   PHASE=retune: the problems an F2 template change touches (f2_transposed/retune.csv) tuned
#     again on $BASE (an exported database; default the shipped one) with every default space
#     (--retune --lt-algos 8), the winners exported (nvidia-h200.json, shipped.db) and, unless
#     BENCH=0, the public suite benched on the export;
#   PHASE=bench: the public suite benched on $BASE (default the shipped database).
# Output: $OUT/transposed-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-transposed
phase=${PHASE:-explore}
dir=tools/device/f2_transposed

gpu_facts
case $phase in
  explore)
    gpu_tests gpu-tests-f2 'F2Tma.Transposed*:F2Tma.Packed*:Families/FamilyCorrectness.*/f2_tma' 240
    sanitize memcheck 'F2Tma.PackedSanitizerSample' 90 memcheck-pack
    mv "$out/memcheck-pack.log" "$res/"
    tune_into transposed 150 $dir/large.csv "$space/f2_tma_transposed.yaml" --strategy exhaustive
    tune_into in-place 120 $dir/large.csv "$space/f2_tma.yaml"
    ;;
  retune)
    retune_shipped $dir/retune.csv 400
    [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
    ;;
  bench)
    bench_public "${BASE:-tuner_db/nvidia-h200.json}"
    ;;
esac
tar -C "$res" -czf "$out/transposed-$phase.tar.gz" .
ls -la "$out"
